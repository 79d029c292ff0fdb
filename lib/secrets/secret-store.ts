/**
 * Secrets as the API, the dashboard and the hook runtime see them: names are public, values go
 * in sealed and come out only to the runtime, for the hooks that name them. Audit rows record
 * who set or deleted which name, never a value.
 */
import { z } from "zod";
import { resolveDataDir, type Db } from "@/db/client";
import { audited } from "@/db/queries/audit";
import { deleteSecret, getSecretCiphertext, listSecretNames, upsertSecret } from "@/db/queries/secrets";
import { ApiError } from "@/lib/api/errors";
import type { Principal } from "@/lib/auth/roles";
import { createSecretBox, loadSecretKey, type SecretBox } from "./secret-box";

/** The same names `${secret:NAME}` can reference, upper case like environment variables. */
export const secretNameSchema = z
  .string()
  .max(128)
  .regex(/^[A-Z][A-Z0-9_]*$/, "a secret name is upper case letters, digits and _, starting with a letter (e.g. SLACK_TOKEN)");

export const secretValueSchema = z.object({ value: z.string().min(1, "the value is empty").max(64 * 1024) });

const BOX_KEY = Symbol.for("hookplane.secretBox");
type GlobalWithBox = typeof globalThis & { [BOX_KEY]?: SecretBox };

/** The process's box, made on first use so a server without secrets never creates a key file. */
export function getSecretBox(): SecretBox {
  const g = globalThis as GlobalWithBox;
  return (g[BOX_KEY] ??= createSecretBox(loadSecretKey({ dataDir: resolveDataDir() })));
}

/** Tests switch keys; the next getSecretBox() reads the environment again. */
export function forgetSecretBox(): void {
  delete (globalThis as GlobalWithBox)[BOX_KEY];
}

export async function listSecrets(db: Db) {
  return listSecretNames(db);
}

export async function putSecretAudited(db: Db, box: SecretBox, principal: Principal, params: { name: string; value: string }) {
  const ciphertext = box.seal(params.name, params.value);
  const saved = await audited(
    db,
    { actor: principal.label, action: "secret.update", entityType: "secret", entityId: params.name, after: { name: params.name } },
    (tx) => upsertSecret(tx, { name: params.name, ciphertext }),
    (saved) => (saved.created ? { action: "secret.create" } : {}),
  );
  return { name: saved.name, createdAt: saved.createdAt, updatedAt: saved.updatedAt, created: saved.created };
}

export async function deleteSecretAudited(db: Db, principal: Principal, params: { name: string }) {
  await audited(db, { actor: principal.label, action: "secret.delete", entityType: "secret", entityId: params.name, before: { name: params.name } }, async (tx) => {
    if (!(await deleteSecret(tx, params))) throw ApiError.notFound(`Secret "${params.name}"`);
  });
}

/** The decrypted value, or undefined when no secret has that name. Throws SecretDecryptError on a wrong key. */
export async function readSecretValue(db: Db, box: () => SecretBox, params: { name: string }): Promise<string | undefined> {
  const sealed = await getSecretCiphertext(db, params);
  return sealed === undefined ? undefined : box().open(params.name, sealed);
}
