/**
 * The Settings form of a provider, read into the API's shape (provider-schema.ts): scopes as
 * words, mappings as lines `group = role` or `group = project:role`, checkboxes as booleans, an empty secret as "keep".
 * Anything that is not text stays as it is, for the schema to refuse at its field.
 */
function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * `hookplane-admins = admin` (the default project) or `team-a-devs = team-a:operator` per line;
 * a line without `=` keeps no role, which the schema names by its index.
 */
export function parseMappingLines(lines: string): { group: string; role: string | undefined; project?: string }[] {
  return lines
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.lastIndexOf("=");
      if (at < 0) return { group: line, role: undefined };
      const group = line.slice(0, at).trim();
      const value = line.slice(at + 1).trim();
      const colon = value.lastIndexOf(":");
      return colon < 0 ? { group, role: value } : { group, project: value.slice(0, colon).trim(), role: value.slice(colon + 1).trim() };
    });
}

export function formatMappingLines(mappings: readonly { group: string; role: string; project?: string }[]): string {
  return mappings.map((m) => `${m.group} = ${m.project ? `${m.project}:` : ""}${m.role}`).join("\n");
}

export function readProviderForm(raw: FormData | Record<string, unknown>): Record<string, unknown> {
  const get = (key: string): unknown => (raw instanceof FormData ? raw.get(key) : raw[key]);
  const scopes = get("scopes");
  const mappings = get("roleMappings");
  const secret = get("clientSecret");
  const defaultRole = get("defaultRole");
  return {
    ...(get("id") !== null && get("id") !== undefined && { id: get("id") }),
    name: get("name") ?? undefined,
    issuer: get("issuer") ?? undefined,
    clientId: get("clientId") ?? undefined,
    clientSecret: secret === "" || secret === null ? undefined : secret,
    scopes: text(scopes) !== undefined ? text(scopes)!.split(/[\s,]+/).filter(Boolean) : scopes,
    groupsClaim: get("groupsClaim") === "" ? undefined : (get("groupsClaim") ?? undefined),
    roleMappings: text(mappings) !== undefined ? parseMappingLines(text(mappings)!) : mappings,
    defaultRole: defaultRole === "" || defaultRole === "none" ? null : defaultRole,
    createUsers: get("createUsers") === "on",
    linkByEmail: get("linkByEmail") === "on",
  };
}
