/**
 * Secrets as the API, the dashboard and the hook runtime see them: names and hosts are public,
 * values go in sealed and come out only to the runtime, for the hooks that name them, bound to the
 * hosts an admin set with them. Audit rows record who set or deleted which name and hosts, never a
 * value.
 */
import net from "node:net";
import { z } from "zod";
import type { Db } from "@/db/client";
import { audited } from "@/db/queries/audit";
import { deleteSecret, getSecretCiphertext, listSecretNames, upsertSecret } from "@/db/queries/secrets";
import { AppError } from "@/lib/platform/api/app-error";
import type { Principal } from "@/lib/platform/auth/roles";
import { getConfig, type EnvSecret } from "@/lib/platform/config/config";
import type { SecretBox } from "@/lib/platform/security/secret-box";

/** The same names `${secret:NAME}` can reference, upper case like environment variables. */
export const secretNameSchema = z
  .string()
  .max(128)
  .regex(/^[A-Z][A-Z0-9_]*$/, "a secret name is upper case letters, digits and _, starting with a letter (e.g. SLACK_TOKEN)");

/** One destination: `api.example.com`, `*.slack.com`, `127.0.0.1` or `[::1]`; never a bare `*`. */
export const secretHostSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .refine(
    (host) =>
      /^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(host) ||
      net.isIPv6(host.replace(/^\[|\]$/g, "")),
    { message: "a host name (api.example.com), a subdomain pattern (*.example.com) or an IP address; no scheme, port or path" },
  );

export const secretHostsSchema = z.array(secretHostSchema).max(50);

export const secretValueSchema = z.object({
  value: z.string().min(1, "the value is empty").max(64 * 1024),
  /**
   * Where the value may be sent. Omitted: a stored secret keeps its hosts (a new one gets none, and
   * no hook can send it anywhere until an admin names its hosts).
   */
  hosts: secretHostsSchema.optional(),
});

/** `a.example.com, *.slack.com` (the Settings form and `HOOKPLANE_SECRET_<NAME>_HOSTS`) → a list. */
export function splitHosts(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((h) => h.trim())
    .filter(Boolean);
}

export async function listSecrets(db: Db, params: { projectId: string }) {
  return listSecretNames(db, params);
}

export async function putSecretAudited(
  db: Db,
  box: SecretBox,
  principal: Principal,
  params: { name: string; value: string; hosts?: string[] },
) {
  const hosts = params.hosts ? [...new Set(params.hosts)] : undefined;
  const ciphertext = box.seal(params.name, params.value);
  const saved = await audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "secret.update", entityType: "secret", entityId: params.name },
    (tx) => upsertSecret(tx, { projectId: principal.projectId, name: params.name, ciphertext, hosts }),
    (saved) => ({ ...(saved.created ? { action: "secret.create" } : {}), after: { name: params.name, hosts: saved.hosts } }),
  );
  return { name: saved.name, hosts: saved.hosts, createdAt: saved.createdAt, updatedAt: saved.updatedAt, created: saved.created };
}

export async function deleteSecretAudited(db: Db, principal: Principal, params: { name: string }) {
  const entry = { projectId: principal.projectId, actor: principal.label, action: "secret.delete", entityType: "secret", entityId: params.name, before: { name: params.name } };
  await audited(db, entry, async (tx) => {
    if (!(await deleteSecret(tx, { projectId: principal.projectId, name: params.name }))) throw AppError.notFound(`Secret "${params.name}"`);
  });
}

/** The decrypted value, or undefined when no secret has that name. Throws SecretDecryptError on a wrong key. */
export async function readSecretValue(db: Db, box: () => SecretBox, params: { projectId: string; name: string }): Promise<string | undefined> {
  return (await readSecret(db, box, params))?.value;
}

/** The decrypted value and its hosts. Throws SecretDecryptError on a wrong key. */
export async function readSecret(
  db: Db,
  box: () => SecretBox,
  params: { projectId: string; name: string },
): Promise<{ value: string; hosts: string[] } | undefined> {
  const sealed = await getSecretCiphertext(db, params);
  return sealed === undefined ? undefined : { value: box().open(params.name, sealed.ciphertext), hosts: sealed.hosts };
}

/**
 * Where a hook's secret comes from. One precedence, used by the hook runtime and shown by
 * Settings: the secret store first; `HOOKPLANE_SECRET_<NAME>` only for a name the store lacks.
 */
export type SecretSource = { kind: "store"; shadows?: string } | { kind: "environment"; variable: string };

/** `HOOKPLANE_SECRET_<NAME>_HOSTS`: only well-formed host names count (a bare `*` or a URL would undo the binding). */
function envSecretHosts(secret: EnvSecret): string[] {
  return splitHosts(secret.hosts ?? "").flatMap((h) => {
    const parsed = secretHostSchema.safeParse(h);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * The value a hook of a run in `projectId` naming `name` gets, its hosts, and where it came from:
 * that project's store, then the environment (shared by every project). Throws SecretDecryptError
 * on a wrong key.
 */
export async function resolveSecret(
  db: Db,
  box: () => SecretBox,
  params: { projectId: string; name: string; envSecrets: ReadonlyMap<string, EnvSecret> },
): Promise<{ value: string; hosts: string[]; source: SecretSource } | undefined> {
  const env = params.envSecrets.get(params.name);
  const stored = await readSecret(db, box, { projectId: params.projectId, name: params.name });
  if (stored) return { ...stored, source: { kind: "store", ...(env && { shadows: env.variable }) } };
  return env && { value: env.value, hosts: envSecretHosts(env), source: { kind: "environment", variable: env.variable } };
}

/** Every secret a hook of the project can name, stored or from the environment, with its hosts and source (no values). */
export async function listSecretsWithSources(
  db: Db,
  projectId: string,
  envSecrets: ReadonlyMap<string, EnvSecret> = getConfig().envSecrets,
) {
  const stored = await listSecretNames(db, { projectId });
  const storedNames = new Set(stored.map((s) => s.name));
  const rows: { name: string; hosts: string[]; updatedAt: Date | null; source: SecretSource }[] = stored.map((s) => {
    const env = envSecrets.get(s.name);
    return { name: s.name, hosts: s.hosts, updatedAt: s.updatedAt, source: { kind: "store", ...(env && { shadows: env.variable }) } };
  });
  for (const [name, env] of envSecrets) {
    if (!storedNames.has(name)) rows.push({ name, hosts: envSecretHosts(env), updatedAt: null, source: { kind: "environment", variable: env.variable } });
  }
  return rows.sort((a, b) => a.name.localeCompare(b.name));
}
