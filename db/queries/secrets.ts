import { asc, eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { secrets } from "../schema";

/** Names, hosts and dates only: the ciphertext never leaves this module except for the one reader. */
export async function listSecretNames(db: Db) {
  return db
    .select({ name: secrets.name, hosts: secrets.hosts, createdAt: secrets.createdAt, updatedAt: secrets.updatedAt })
    .from(secrets)
    .orderBy(asc(secrets.name));
}

export async function getSecretCiphertext(db: Db, params: { name: string }): Promise<{ ciphertext: string; hosts: string[] } | undefined> {
  const [row] = await db.select({ ciphertext: secrets.ciphertext, hosts: secrets.hosts }).from(secrets).where(eq(secrets.name, params.name));
  return row;
}

/**
 * Inserts or replaces; says whether the name existed before. `hosts` undefined keeps the stored
 * hosts of an existing secret (a new one gets none).
 */
export async function upsertSecret(db: Db, params: { name: string; ciphertext: string; hosts?: string[] }) {
  const [row] = await db
    .insert(secrets)
    .values({ name: params.name, ciphertext: params.ciphertext, hosts: params.hosts ?? [] })
    .onConflictDoUpdate({
      target: secrets.name,
      set: { ciphertext: params.ciphertext, ...(params.hosts ? { hosts: params.hosts } : {}), updatedAt: sql`now()` },
    })
    .returning({ name: secrets.name, hosts: secrets.hosts, createdAt: secrets.createdAt, updatedAt: secrets.updatedAt });
  return { ...row, created: row.createdAt.getTime() === row.updatedAt.getTime() };
}

export async function deleteSecret(db: Db, params: { name: string }) {
  const [row] = await db.delete(secrets).where(eq(secrets.name, params.name)).returning({ name: secrets.name });
  return row;
}
