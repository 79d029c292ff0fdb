-- The hash chains move to a narrow table of their own (db/schema.ts, chainLinks): a row is no longer
-- sealed by an UPDATE that set its indexed chain_seq (every ledger row rewritten whole, with a new
-- entry in each of its six indexes, ~40 us a row, most of what a hook's ledger row cost), but by one
-- small INSERT of its position and hash. What was sealed before is copied; the rows' own chain_seq
-- and hash keep those values and are never set again.
CREATE TABLE "chain_links" (
	"table_name" text NOT NULL,
	"chain_seq" bigint NOT NULL,
	"row_id" bigint NOT NULL,
	"row_created_at" timestamp with time zone NOT NULL,
	"hash" text NOT NULL,
	CONSTRAINT "chain_links_pkey" PRIMARY KEY("table_name","chain_seq")
);
--> statement-breakpoint
CREATE TABLE "chain_state" (
	"table_name" text PRIMARY KEY NOT NULL,
	"sealed_through" bigint NOT NULL,
	"horizon_id" bigint,
	"horizon_xmax" text
);
--> statement-breakpoint
INSERT INTO chain_links (table_name, chain_seq, row_id, row_created_at, hash)
  SELECT 'audit_log', chain_seq, id, created_at, hash FROM audit_log WHERE chain_seq IS NOT NULL;
--> statement-breakpoint
INSERT INTO chain_links (table_name, chain_seq, row_id, row_created_at, hash)
  SELECT 'hook_invocations', chain_seq, id, created_at, hash FROM hook_invocations WHERE chain_seq IS NOT NULL;
--> statement-breakpoint
-- The sealer takes rows in id order from here: below the oldest row not sealed yet (it skips those
-- sealed since), or past every row.
INSERT INTO chain_state (table_name, sealed_through) VALUES
  ('audit_log', coalesce((SELECT min(id) - 1 FROM audit_log WHERE chain_seq IS NULL), (SELECT max(id) FROM audit_log), 0)),
  ('hook_invocations', coalesce((SELECT min(id) - 1 FROM hook_invocations WHERE chain_seq IS NULL), (SELECT max(id) FROM hook_invocations), 0));
--> statement-breakpoint
DROP INDEX "audit_log_unsealed_idx";--> statement-breakpoint
DROP INDEX "hook_invocations_unsealed_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "chain_links_row_uq" ON "chain_links" USING btree ("table_name","row_id");
--> statement-breakpoint
-- The sealer's horizon (hash-chain.ts): the ids handed out before a snapshot are final once every
-- transaction in progress in it has ended, provided a writer holds its transaction id before it
-- takes a row's id. A transaction gets one at its first row's insert, after that row's id was taken,
-- so each INSERT takes it first, once per statement.
CREATE FUNCTION hookplane_chain_writer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_current_xact_id();
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_log_chain_writer BEFORE INSERT ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION hookplane_chain_writer();
--> statement-breakpoint
CREATE TRIGGER hook_invocations_chain_writer BEFORE INSERT ON hook_invocations
  FOR EACH STATEMENT EXECUTE FUNCTION hookplane_chain_writer();
--> statement-breakpoint
-- A row's own chain columns are never set again.
DROP TRIGGER "audit_log_append_only_seal" ON "audit_log";
--> statement-breakpoint
DROP TRIGGER "hook_invocations_append_only_seal" ON "hook_invocations";
--> statement-breakpoint
CREATE TRIGGER audit_log_append_only_seal BEFORE UPDATE OF "chain_seq", "hash" ON audit_log
  FOR EACH ROW EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
CREATE TRIGGER hook_invocations_append_only_seal BEFORE UPDATE OF "chain_seq", "hash" ON hook_invocations
  FOR EACH ROW EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
-- chain_links is append-only: no UPDATE or TRUNCATE; a link goes only with its row, below
-- retention's newest anchor or inside a deleted run's gap.
CREATE FUNCTION hookplane_chain_link_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM chain_anchors a WHERE a.table_name = OLD.table_name AND a.chain_seq >= OLD.chain_seq)
     OR EXISTS (SELECT 1 FROM chain_gaps g WHERE g.table_name = OLD.table_name AND g.first_seq <= OLD.chain_seq AND g.last_seq >= OLD.chain_seq) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'chain_links is append-only: DELETE refused (a link goes with its row: by retention, below its anchor, or with a deleted run, inside its gap)'
    USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE TRIGGER chain_links_append_only BEFORE UPDATE ON chain_links
  FOR EACH ROW EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
CREATE TRIGGER chain_links_removal BEFORE DELETE ON chain_links
  FOR EACH ROW EXECUTE FUNCTION hookplane_chain_link_guard();
--> statement-breakpoint
CREATE TRIGGER chain_links_append_only_truncate BEFORE TRUNCATE ON chain_links
  FOR EACH STATEMENT EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
-- The guards that named a row by its chain_seq name it by its link now.
CREATE OR REPLACE FUNCTION hookplane_chain_retention_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deleted_count bigint;
  unsealed_count bigint;
  last_seq bigint;
  last_hash text;
  newest timestamptz;
  older_kept boolean;
  anchored boolean;
  gapped boolean;
BEGIN
  SELECT count(*), count(*) FILTER (WHERE l.chain_seq IS NULL), max(l.chain_seq), max(d.created_at)
    INTO deleted_count, unsealed_count, last_seq, newest
    FROM deleted_rows d LEFT JOIN chain_links l ON l.table_name = TG_TABLE_NAME AND l.row_id = d.id;
  IF deleted_count = 0 THEN
    RETURN NULL;
  END IF;
  IF unsealed_count > 0 THEN
    RAISE EXCEPTION '% is append-only: DELETE refused (% rows not yet sealed into the chain)', TG_TABLE_NAME, unsealed_count
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF TG_TABLE_NAME = 'hook_invocations' THEN
    -- Gaps never overlap: the one holding a position is the last to start at or before it.
    SELECT NOT EXISTS (
             SELECT 1 FROM deleted_rows d JOIN chain_links l ON l.table_name = TG_TABLE_NAME AND l.row_id = d.id
              WHERE d.run_id IS NULL
                 OR NOT EXISTS (SELECT 1 FROM (SELECT g.run_id, g.last_seq FROM chain_gaps g
                                                WHERE g.table_name = TG_TABLE_NAME AND g.first_seq <= l.chain_seq
                                                ORDER BY g.first_seq DESC LIMIT 1) g
                                 WHERE g.run_id = d.run_id AND g.last_seq >= l.chain_seq))
       AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = ANY (ARRAY(SELECT DISTINCT run_id FROM deleted_rows)))
      INTO gapped;
    IF gapped THEN
      RETURN NULL;
    END IF;
  END IF;
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM chain_links l JOIN %I.%I t ON t.id = l.row_id AND t.created_at = l.row_created_at WHERE l.table_name = $2 AND l.chain_seq <= $1)', TG_TABLE_SCHEMA, TG_TABLE_NAME)
    INTO older_kept USING last_seq, TG_TABLE_NAME;
  IF older_kept THEN
    RAISE EXCEPTION '% is append-only: DELETE refused (only the oldest rows may go, not rows up to position % with older ones kept)', TG_TABLE_NAME, last_seq
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  SELECT l.hash INTO last_hash FROM chain_links l WHERE l.table_name = TG_TABLE_NAME AND l.chain_seq = last_seq;
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
CREATE OR REPLACE FUNCTION hookplane_chain_gap_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  in_range bigint;
  of_run bigint;
  linked boolean;
BEGIN
  IF NEW.table_name = 'hook_invocations' AND NEW.first_seq <= NEW.last_seq THEN
    SELECT count(*), count(*) FILTER (WHERE t.run_id = NEW.run_id) INTO in_range, of_run
      FROM chain_links l JOIN hook_invocations t ON t.id = l.row_id AND t.created_at = l.row_created_at
      WHERE l.table_name = 'hook_invocations' AND l.chain_seq BETWEEN NEW.first_seq AND NEW.last_seq;
    SELECT EXISTS (SELECT 1 FROM chain_links WHERE table_name = 'hook_invocations' AND chain_seq = NEW.last_seq AND hash = NEW.hash) INTO linked;
    IF linked AND in_range = NEW.last_seq - NEW.first_seq + 1 AND of_run = in_range
       AND NOT EXISTS (SELECT 1 FROM runs WHERE id = NEW.run_id) THEN
      RETURN NEW;
    END IF;
  END IF;
  RAISE EXCEPTION 'chain_gaps is append-only: INSERT refused (a gap is written when a run is deleted: consecutive sealed ledger rows of that run, the run already gone)'
    USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION hookplane_chain_seal_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM chain_links WHERE table_name = NEW.table_name AND chain_seq = NEW.chain_seq AND hash = NEW.hash) THEN
    RAISE EXCEPTION 'chain_seals is append-only: INSERT refused (a signed head names a sealed row of a chained table: its position and hash)'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION hookplane_chain_anchor_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  linked boolean;
  newer boolean;
BEGIN
  IF NEW.table_name NOT IN ('audit_log', 'hook_invocations') THEN
    RAISE EXCEPTION 'chain_anchors is append-only: INSERT refused (no hash chain on table %)', NEW.table_name
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  SELECT EXISTS (SELECT 1 FROM chain_anchors a WHERE a.table_name = NEW.table_name AND a.chain_seq >= NEW.chain_seq) INTO newer;
  SELECT EXISTS (SELECT 1 FROM chain_links WHERE table_name = NEW.table_name AND chain_seq = NEW.chain_seq AND hash = NEW.hash) INTO linked;
  IF newer OR NOT linked OR NEW.before <> date_trunc('day', NEW.before, 'UTC') THEN
    RAISE EXCEPTION 'chain_anchors is append-only: INSERT refused (an anchor is written by retention: a UTC midnight and the hash of a sealed row past the last anchor)'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END
$$;
