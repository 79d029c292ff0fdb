/**
 * The Settings form of a provider, read into the API's shape (provider-schema.ts): scopes as
 * words, mappings as lines `group = role`, checkboxes as booleans, an empty secret as "keep".
 * Anything that is not text stays as it is, for the schema to refuse at its field.
 */
function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** `hookplane-admins = admin` per line; a line without `=` keeps no role, which the schema names by its index. */
export function parseMappingLines(lines: string): { group: string; role: string | undefined }[] {
  return lines
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.lastIndexOf("=");
      return at < 0 ? { group: line, role: undefined } : { group: line.slice(0, at).trim(), role: line.slice(at + 1).trim() };
    });
}

export function formatMappingLines(mappings: readonly { group: string; role: string }[]): string {
  return mappings.map((m) => `${m.group} = ${m.role}`).join("\n");
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
