import { eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { signInFailures } from "../schema";

export async function getSignInFailures(db: Db, params: { key: string }) {
  const [row] = await db.select().from(signInFailures).where(eq(signInFailures.key, params.key));
  return row;
}

export async function recordSignInFailure(db: Db, params: { key: string }) {
  await db
    .insert(signInFailures)
    .values({ key: params.key, failures: 1 })
    .onConflictDoUpdate({
      target: signInFailures.key,
      set: { failures: sql`${signInFailures.failures} + 1`, lastFailureAt: new Date() },
    });
}

export async function clearSignInFailures(db: Db, params: { key: string }) {
  await db.delete(signInFailures).where(eq(signInFailures.key, params.key));
}
