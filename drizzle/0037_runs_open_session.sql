-- One open run per (agent, actor, session): a session's first events start its run with one
-- INSERT ... ON CONFLICT DO NOTHING instead of a transaction under an advisory lock
-- (db/queries/external-runs.ts). The lock kept this true before, so no row should be in the way;
-- should one be (an older open run of a session that has a newer one), it is finished as
-- superseded, not left to stop the migration.
UPDATE "runs" r SET "status" = 'finished', "outcome" = 'cancelled',
  "reason" = 'superseded by a newer open run of the same session', "finished_at" = now()
WHERE r."external_session_id" IS NOT NULL AND r."status" <> 'finished' AND EXISTS (
  SELECT 1 FROM "runs" n
  WHERE n."agent_id" = r."agent_id" AND n."actor_key" = r."actor_key" AND n."external_session_id" = r."external_session_id"
    AND n."status" <> 'finished' AND (n."created_at", n."id") > (r."created_at", r."id"));
--> statement-breakpoint
CREATE UNIQUE INDEX "runs_open_session_uq" ON "runs" USING btree ("agent_id","actor_key","external_session_id") WHERE external_session_id is not null and status <> 'finished';
