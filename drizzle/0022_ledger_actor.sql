ALTER TABLE "hook_invocations" ADD COLUMN "actor_key" text;--> statement-breakpoint
ALTER TABLE "hook_invocations" ADD COLUMN "actor" jsonb;--> statement-breakpoint
CREATE INDEX "hook_invocations_actor_idx" ON "hook_invocations" USING btree ("project_id","actor_key","created_at");--> statement-breakpoint
-- Who acted is hashed (db/queries/hash-chain.ts) and, like every hashed column, never changed.
DROP TRIGGER "hook_invocations_append_only_update" ON "hook_invocations";
--> statement-breakpoint
CREATE TRIGGER hook_invocations_append_only_update BEFORE UPDATE OF
  "id", "run_id", "event_seq", "event", "hook_key", "hook_version", "scope", "matched",
  "skip_reason", "verdict", "reason", "mode", "action", "failed", "timed_out", "ignored",
  "approval", "exit_code", "stdout", "stderr", "output", "duration_ms", "created_at",
  "actor_key", "actor"
  ON hook_invocations FOR EACH ROW EXECUTE FUNCTION hookplane_refuse_change();
