import { sql } from "drizzle-orm";
import { CHANNELS, type AccessNotice } from "@/db/notify-channels";
import type { Db } from "../client";
import { forgetCredentials } from "./token-cache";

/**
 * Tells every web process that access changed, so each closes the sockets that stood on it and
 * forgets the tokens it read (token-cache.ts).
 * Inside a transaction, PostgreSQL delivers the notice at commit, after the change is visible.
 */
export async function announceAccessChange(db: Db, notice: AccessNotice) {
  // This process forgets its cached tokens now, and keeps none read until the change is visible.
  forgetCredentials({ uncommitted: true });
  await db.execute(sql`select pg_notify(${CHANNELS.access}, ${JSON.stringify(notice)})`);
}
