import { asc, count, eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { oidcProviders, sessions } from "../schema";

export type OidcProviderRow = typeof oidcProviders.$inferSelect;
export type NewOidcProvider = typeof oidcProviders.$inferInsert;

export async function listOidcProviders(db: Db): Promise<OidcProviderRow[]> {
  return db.select().from(oidcProviders).orderBy(asc(oidcProviders.name));
}

export async function getOidcProvider(db: Db, params: { id: string }): Promise<OidcProviderRow | undefined> {
  const [row] = await db.select().from(oidcProviders).where(eq(oidcProviders.id, params.id));
  return row;
}

export async function getOidcProviderByName(db: Db, params: { name: string }): Promise<OidcProviderRow | undefined> {
  const [row] = await db.select().from(oidcProviders).where(eq(oidcProviders.name, params.name));
  return row;
}

export async function countOidcProviders(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(oidcProviders);
  return row.n;
}

/** Undefined when another provider has the name. */
export async function insertOidcProvider(db: Db, values: NewOidcProvider): Promise<OidcProviderRow | undefined> {
  const [row] = await db.insert(oidcProviders).values(values).onConflictDoNothing({ target: oidcProviders.name }).returning();
  return row;
}

export async function updateOidcProvider(db: Db, params: { id: string; set: Partial<Omit<NewOidcProvider, "id" | "createdAt">> }) {
  const [row] = await db
    .update(oidcProviders)
    .set({ ...params.set, updatedAt: sql`now()` })
    .where(eq(oidcProviders.id, params.id))
    .returning();
  return row as OidcProviderRow | undefined;
}

/** Deletes the provider (its sessions go with it, by the foreign key); returns whose sessions those were. */
export async function deleteOidcProvider(db: Db, params: { id: string }): Promise<{ row: OidcProviderRow | undefined; sessionUserIds: string[] }> {
  const holders = await db.selectDistinct({ userId: sessions.userId }).from(sessions).where(eq(sessions.providerId, params.id));
  const [row] = await db.delete(oidcProviders).where(eq(oidcProviders.id, params.id)).returning();
  return { row, sessionUserIds: row ? holders.map((h) => h.userId) : [] };
}
