import { asc, eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { secrets } from "../schema";

/** Names and dates only: the ciphertext never leaves this module except for the one reader. */
export async function listSecretNames(db: Db) {
  return db
    .select({ name: secrets.name, createdAt: secrets.createdAt, updatedAt: secrets.updatedAt })
    .from(secrets)
    .orderBy(asc(secrets.name));
}

export async function getSecretCiphertext(db: Db, params: { name: string }): Promise<string | undefined> {
  const [row] = await db.select({ ciphertext: secrets.ciphertext }).from(secrets).where(eq(secrets.name, params.name));
  return row?.ciphertext;
}

/** Inserts or replaces; says whether the name existed before. */
export async function upsertSecret(db: Db, params: { name: string; ciphertext: string }) {
  const [row] = await db
    .insert(secrets)
    .values({ name: params.name, ciphertext: params.ciphertext })
    .onConflictDoUpdate({ target: secrets.name, set: { ciphertext: params.ciphertext, updatedAt: sql`now()` } })
    .returning({ name: secrets.name, createdAt: secrets.createdAt, updatedAt: secrets.updatedAt });
  return { ...row, created: row.createdAt.getTime() === row.updatedAt.getTime() };
}

export async function deleteSecret(db: Db, params: { name: string }) {
  const [row] = await db.delete(secrets).where(eq(secrets.name, params.name)).returning({ name: secrets.name });
  return row;
}
