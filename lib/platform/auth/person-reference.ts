/**
 * A person named in a filter (`?actor=`): by user id or email. Shared by every list that filters by
 * person (runs, approvals, the ledger, costs), so a link built for one works on the others.
 */
import { z } from "zod";
import { uuidSchema } from "@/lib/core/safe-input";
import type { Db } from "@/db/client";
import { getUserByEmail } from "@/db/queries/users";

/** The query parameter: a user id or an email. */
export const personReferenceSchema = z.string().max(320);

/**
 * Someone who is no one here still filters (to nothing): a list filtered by a person who left
 * shows their records by id, and an unknown email shows none.
 */
export async function userIdOfPerson(db: Db, reference: string): Promise<string> {
  if (uuidSchema.safeParse(reference).success) return reference.toLowerCase();
  const user = await getUserByEmail(db, { email: reference });
  return user?.id ?? "00000000-0000-0000-0000-000000000000";
}
