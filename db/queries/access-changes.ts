import { sql } from "drizzle-orm";
import { CHANNELS, type AccessNotice } from "@/lib/platform/stream/channels";
import type { Db } from "../client";

/**
 * Tells every web process that access changed, so each closes the sockets that stood on it.
 * Inside a transaction, PostgreSQL delivers the notice at commit, after the change is visible.
 */
export async function announceAccessChange(db: Db, notice: AccessNotice) {
  await db.execute(sql`select pg_notify(${CHANNELS.access}, ${JSON.stringify(notice)})`);
}
