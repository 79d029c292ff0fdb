import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { secrets } from "../schema";

/** One project's secrets: names, hosts and dates only (the ciphertext never leaves this module except for the one reader). */
export async function listSecretNames(db: Db, params: { projectId: string }) {
  return db
    .select({ name: secrets.name, hosts: secrets.hosts, createdAt: secrets.createdAt, updatedAt: secrets.updatedAt })
    .from(secrets)
    .where(eq(secrets.projectId, params.projectId))
    .orderBy(asc(secrets.name));
}

/**
 * Every project's secret names, for what must recognise any stored value wherever it came from
 * (the notice maskers); never shown to anyone.
 */
export async function listAllSecretNames(db: Db) {
  return db.select({ projectId: secrets.projectId, name: secrets.name }).from(secrets).orderBy(asc(secrets.projectId), asc(secrets.name));
}

export async function getSecretCiphertext(db: Db, params: { projectId: string; name: string }): Promise<{ ciphertext: string; hosts: string[] } | undefined> {
  const [row] = await db
    .select({ ciphertext: secrets.ciphertext, hosts: secrets.hosts })
    .from(secrets)
    .where(and(eq(secrets.projectId, params.projectId), eq(secrets.name, params.name)));
  return row;
}

/**
 * Inserts or replaces the project's secret of that name; says whether it existed before. `hosts`
 * undefined keeps the stored hosts of an existing secret (a new one gets none).
 */
export async function upsertSecret(db: Db, params: { projectId: string; name: string; ciphertext: string; hosts?: string[] }) {
  const [row] = await db
    .insert(secrets)
    .values({ projectId: params.projectId, name: params.name, ciphertext: params.ciphertext, hosts: params.hosts ?? [] })
    .onConflictDoUpdate({
      target: [secrets.projectId, secrets.name],
      set: { ciphertext: params.ciphertext, ...(params.hosts ? { hosts: params.hosts } : {}), updatedAt: sql`now()` },
    })
    .returning({ name: secrets.name, hosts: secrets.hosts, createdAt: secrets.createdAt, updatedAt: secrets.updatedAt });
  return { ...row, created: row.createdAt.getTime() === row.updatedAt.getTime() };
}

export async function deleteSecret(db: Db, params: { projectId: string; name: string }) {
  const [row] = await db
    .delete(secrets)
    .where(and(eq(secrets.projectId, params.projectId), eq(secrets.name, params.name)))
    .returning({ name: secrets.name });
  return row;
}
