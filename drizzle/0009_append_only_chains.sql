-- The audit log and the hook ledger are append-only (hook-model.md, "Trust"). The database says so
-- too, so that no code path (a route, an action, a hand-written query) can change the record:
--   * UPDATE is refused, except the sealer's one write per row: filling chain_seq and hash of a row
--     that had neither. Two triggers, so the sealer pays nothing per row: one fires for any UPDATE
--     that names a content column (`UPDATE OF`, whatever the values, so `SET x = x` is refused too),
--     one checks the chain columns with a WHEN clause (no function call unless it refuses). A column
--     added to these tables must be added to the first trigger's list: the integrity suite
--     (lib/security/audit-integrity.db.test.ts) fails until it is.
--   * DELETE is refused, except retention's (db/queries/hash-chain.ts, deleteChainDaysBefore): one
--     statement removing the oldest sealed rows, a prefix of the chain, all created before a UTC
--     midnight, after retention wrote the chain_anchors row that the oldest remaining row links to.
--     Checked once per statement over the deleted rows, so inserts and the sealer pay nothing for it.
--   * INSERT of a row that claims a chain position or hash is refused: only the sealer assigns them.
--   * TRUNCATE is refused; chain_anchors itself takes no UPDATE, DELETE or TRUNCATE, and only
--     anchors shaped like retention's (a UTC midnight, the hash of a sealed row past the last anchor).
-- Whoever can disable triggers (a superuser, the table's owner) can still change rows: the hash
-- chain is what finds that afterwards (`hookplane audit verify`).
CREATE FUNCTION hookplane_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    RAISE EXCEPTION '% is append-only: INSERT refused (rows arrive unsealed; only the sealer sets chain_seq and hash)', TG_TABLE_NAME
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'insufficient_privilege',
          HINT = 'Rows are sealed into a hash chain; only retention deletes, whole days from the oldest end.';
END
$$;
--> statement-breakpoint
CREATE FUNCTION hookplane_chain_retention_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deleted_count bigint;
  unsealed_count bigint;
  last_seq bigint;
  last_hash text;
  newest timestamptz;
  older_kept boolean;
  anchored boolean;
BEGIN
  SELECT count(*), count(*) FILTER (WHERE chain_seq IS NULL), max(chain_seq), max(created_at)
    INTO deleted_count, unsealed_count, last_seq, newest
    FROM deleted_rows;
  IF deleted_count = 0 THEN
    RETURN NULL;
  END IF;
  IF unsealed_count > 0 THEN
    RAISE EXCEPTION '% is append-only: DELETE refused (% rows not yet sealed into the chain)', TG_TABLE_NAME, unsealed_count
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.%I WHERE chain_seq <= $1)', TG_TABLE_SCHEMA, TG_TABLE_NAME)
    INTO older_kept USING last_seq;
  IF older_kept THEN
    RAISE EXCEPTION '% is append-only: DELETE refused (only the oldest rows may go, not rows up to position % with older ones kept)', TG_TABLE_NAME, last_seq
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  SELECT hash INTO last_hash FROM deleted_rows WHERE chain_seq = last_seq;
  SELECT EXISTS (
    SELECT 1 FROM chain_anchors a
    WHERE a.table_name = TG_TABLE_NAME
      AND a.chain_seq = last_seq
      AND a.hash = last_hash
      AND a.deleted_rows = deleted_count
      AND a.before = date_trunc('day', a.before, 'UTC')
      AND newest < a.before
  ) INTO anchored;
  IF NOT anchored THEN
    RAISE EXCEPTION '% is append-only: DELETE refused (not retention: no anchor for whole days up to position %)', TG_TABLE_NAME, last_seq
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION hookplane_chain_anchor_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  linked boolean;
  newer boolean;
BEGIN
  IF NEW.table_name NOT IN ('audit_log', 'hook_invocations') THEN
    RAISE EXCEPTION 'chain_anchors is append-only: INSERT refused (no hash chain on table %)', NEW.table_name
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  SELECT EXISTS (SELECT 1 FROM chain_anchors a WHERE a.table_name = NEW.table_name AND a.chain_seq >= NEW.chain_seq) INTO newer;
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE chain_seq = $1 AND hash = $2)', NEW.table_name)
    INTO linked USING NEW.chain_seq, NEW.hash;
  IF newer OR NOT linked OR NEW.before <> date_trunc('day', NEW.before, 'UTC') THEN
    RAISE EXCEPTION 'chain_anchors is append-only: INSERT refused (an anchor is written by retention: a UTC midnight and the hash of a sealed row past the last anchor)'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_log_append_only_insert BEFORE INSERT ON audit_log FOR EACH ROW
  WHEN (NEW.chain_seq IS NOT NULL OR NEW.hash IS NOT NULL)
  EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
CREATE TRIGGER audit_log_append_only_update BEFORE UPDATE OF
  "id", "actor", "action", "entity_type", "entity_id", "before", "after", "created_at"
  ON audit_log FOR EACH ROW EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
CREATE TRIGGER audit_log_append_only_seal BEFORE UPDATE OF "chain_seq", "hash" ON audit_log FOR EACH ROW
  WHEN (OLD.chain_seq IS NOT NULL OR OLD.hash IS NOT NULL OR NEW.chain_seq IS NULL OR NEW.hash IS NULL)
  EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
CREATE TRIGGER audit_log_append_only_delete AFTER DELETE ON audit_log
  REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT
  EXECUTE FUNCTION hookplane_chain_retention_guard();
--> statement-breakpoint
CREATE TRIGGER audit_log_append_only_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
CREATE TRIGGER hook_invocations_append_only_insert BEFORE INSERT ON hook_invocations FOR EACH ROW
  WHEN (NEW.chain_seq IS NOT NULL OR NEW.hash IS NOT NULL)
  EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
CREATE TRIGGER hook_invocations_append_only_update BEFORE UPDATE OF
  "id", "run_id", "event_seq", "event", "hook_key", "hook_version", "scope", "matched",
  "skip_reason", "verdict", "reason", "mode", "action", "failed", "timed_out", "ignored",
  "approval", "exit_code", "stdout", "stderr", "output", "duration_ms", "created_at"
  ON hook_invocations FOR EACH ROW EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
CREATE TRIGGER hook_invocations_append_only_seal BEFORE UPDATE OF "chain_seq", "hash" ON hook_invocations FOR EACH ROW
  WHEN (OLD.chain_seq IS NOT NULL OR OLD.hash IS NOT NULL OR NEW.chain_seq IS NULL OR NEW.hash IS NULL)
  EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
CREATE TRIGGER hook_invocations_append_only_delete AFTER DELETE ON hook_invocations
  REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT
  EXECUTE FUNCTION hookplane_chain_retention_guard();
--> statement-breakpoint
CREATE TRIGGER hook_invocations_append_only_truncate BEFORE TRUNCATE ON hook_invocations
  FOR EACH STATEMENT EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
CREATE TRIGGER chain_anchors_written_by_retention BEFORE INSERT ON chain_anchors
  FOR EACH ROW EXECUTE FUNCTION hookplane_chain_anchor_guard();
--> statement-breakpoint
CREATE TRIGGER chain_anchors_append_only BEFORE UPDATE OR DELETE ON chain_anchors
  FOR EACH ROW EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
CREATE TRIGGER chain_anchors_append_only_truncate BEFORE TRUNCATE ON chain_anchors
  FOR EACH STATEMENT EXECUTE FUNCTION hookplane_refuse_change();
