ALTER TABLE "approvals" ADD COLUMN "approved_input" jsonb;--> statement-breakpoint
ALTER TABLE "hook_invocations" ADD COLUMN "modification" jsonb;--> statement-breakpoint
-- What a hook changed in a call is hashed (db/queries/hash-chain.ts) and, like every hashed column, never changed.
DROP TRIGGER "hook_invocations_append_only_update" ON "hook_invocations";
--> statement-breakpoint
CREATE TRIGGER hook_invocations_append_only_update BEFORE UPDATE OF
  "id", "run_id", "event_seq", "event", "hook_key", "hook_version", "scope", "matched",
  "skip_reason", "verdict", "reason", "mode", "action", "failed", "timed_out", "ignored",
  "approval", "exit_code", "stdout", "stderr", "output", "duration_ms", "created_at",
  "actor_key", "actor", "modification"
  ON hook_invocations FOR EACH ROW EXECUTE FUNCTION hookplane_refuse_change();
