-- Retention (lib/features/retention/README.md).
--
-- 1. agents.retention_days: how many days an agent's runs and their events are kept (NULL: the
--    instance default in settings, 0: forever).
-- 2. run_events and hook_invocations become range-partitioned by time (run_events.ts,
--    hook_invocations.created_at), so retention drops whole old partitions instead of deleting row by
--    row. The existing table becomes the first partition with its rows where they are (FROM MINVALUE
--    to the UTC midnight after its newest row, tomorrow at the earliest); a DEFAULT partition takes
--    any row no partition covers, so an insert never fails; db/queries/partitions.ts creates the next
--    days' (or months') partitions ahead. A unique index of a partitioned table must contain the
--    partition key: hence (id, ts) and (run_id, seq, ts). The id sequences carry on.
-- 3. run_events loses its foreign key to runs: with it, creating a partition takes a lock on runs,
--    which every append updates. A trigger on runs deletes a deleted run's events instead, so
--    deleting a run (or an agent) still removes them.
-- 4. The ledger's append-only triggers move to the partitioned table (row triggers are cloned to
--    every partition; statement triggers are not, so each partition refuses DELETE and TRUNCATE
--    addressed to it directly). Dropping a partition is its owner's act, which the chain check sees
--    unless retention anchored it first (db/queries/retention.ts).
-- 5. chain_gaps: deleting a run on purpose (DELETE /api/v1/runs/{id}) removes its sealed ledger rows
--    from the middle of the chain. Each gap keeps the positions they held and the hash of the last,
--    which the next row links to, so verify still walks the chain. The ledger's DELETE guard accepts
--    this second shape: rows of runs that are gone, each inside a gap of its own run.
ALTER TABLE "agents" ADD COLUMN "retention_days" integer;
--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_retention_days_ck" CHECK ("agents"."retention_days" is null or "agents"."retention_days" >= 0);
--> statement-breakpoint
CREATE TABLE "chain_gaps" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"table_name" text NOT NULL,
	"run_id" uuid NOT NULL,
	"first_seq" bigint NOT NULL,
	"last_seq" bigint NOT NULL,
	"hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "chain_gaps_table_seq_uq" ON "chain_gaps" USING btree ("table_name","first_seq");
--> statement-breakpoint
-- The bound of a first partition: past the newest row it holds, and tomorrow at the earliest.
CREATE FUNCTION hookplane_initial_partition_bound(newest timestamptz) RETURNS timestamptz LANGUAGE sql STABLE AS $$
  SELECT greatest(date_trunc('day', now(), 'UTC'), coalesce(date_trunc('day', newest, 'UTC'), '-infinity')) + interval '1 day'
$$;
--> statement-breakpoint
ALTER TABLE "run_events" DROP CONSTRAINT "run_events_run_id_runs_id_fk";
--> statement-breakpoint
ALTER TABLE "run_events" RENAME TO "run_events_initial";
--> statement-breakpoint
ALTER TABLE "run_events_initial" DROP CONSTRAINT "run_events_pkey";
--> statement-breakpoint
DROP INDEX "run_events_run_seq_uq";
--> statement-breakpoint
CREATE TABLE "run_events" (
	"id" bigint DEFAULT nextval('run_events_id_seq'::regclass) NOT NULL,
	"run_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"ts" timestamp with time zone DEFAULT now() NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "run_events_pkey" PRIMARY KEY("id","ts")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
ALTER SEQUENCE "run_events_id_seq" OWNED BY "run_events"."id";
--> statement-breakpoint
ALTER TABLE "run_events_initial" ALTER COLUMN "id" DROP DEFAULT;
--> statement-breakpoint
CREATE UNIQUE INDEX "run_events_run_seq_uq" ON "run_events" USING btree ("run_id","seq","ts");
--> statement-breakpoint
DO $$
BEGIN
  EXECUTE format('ALTER TABLE run_events ATTACH PARTITION run_events_initial FOR VALUES FROM (MINVALUE) TO (%L)',
    (SELECT hookplane_initial_partition_bound(max(ts)) FROM run_events_initial));
END
$$;
--> statement-breakpoint
CREATE TABLE "run_events_default" PARTITION OF "run_events" DEFAULT;
--> statement-breakpoint
-- What the foreign key's ON DELETE CASCADE did: a deleted run's events go with it (one statement
-- per DELETE on runs, an index probe per partition).
CREATE FUNCTION hookplane_delete_run_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM run_events WHERE run_id = ANY (ARRAY(SELECT id FROM deleted_runs));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER runs_delete_events AFTER DELETE ON runs REFERENCING OLD TABLE AS deleted_runs
  FOR EACH STATEMENT EXECUTE FUNCTION hookplane_delete_run_events();
--> statement-breakpoint
DROP TRIGGER "hook_invocations_append_only_insert" ON "hook_invocations";
--> statement-breakpoint
DROP TRIGGER "hook_invocations_append_only_update" ON "hook_invocations";
--> statement-breakpoint
DROP TRIGGER "hook_invocations_append_only_seal" ON "hook_invocations";
--> statement-breakpoint
DROP TRIGGER "hook_invocations_append_only_delete" ON "hook_invocations";
--> statement-breakpoint
DROP TRIGGER "hook_invocations_append_only_truncate" ON "hook_invocations";
--> statement-breakpoint
ALTER TABLE "hook_invocations" RENAME TO "hook_invocations_initial";
--> statement-breakpoint
ALTER TABLE "hook_invocations_initial" DROP CONSTRAINT "hook_invocations_pkey";
--> statement-breakpoint
DROP INDEX "hook_invocations_run_idx";
--> statement-breakpoint
DROP INDEX "hook_invocations_hook_idx";
--> statement-breakpoint
DROP INDEX "hook_invocations_chain_seq_uq";
--> statement-breakpoint
DROP INDEX "hook_invocations_unsealed_idx";
--> statement-breakpoint
-- The alerts' window indexes (0014) move to the partitioned table too.
DROP INDEX "hook_invocations_failures_idx";
--> statement-breakpoint
DROP INDEX "hook_invocations_blocks_idx";
--> statement-breakpoint
CREATE TABLE "hook_invocations" (
	"id" bigint DEFAULT nextval('hook_invocations_id_seq'::regclass) NOT NULL,
	"run_id" uuid,
	"event_seq" integer,
	"event" text NOT NULL,
	"hook_key" text NOT NULL,
	"hook_version" integer,
	"scope" text,
	"matched" boolean NOT NULL,
	"skip_reason" text,
	"verdict" text,
	"reason" text,
	"mode" text,
	"action" text,
	"failed" boolean DEFAULT false NOT NULL,
	"timed_out" boolean DEFAULT false NOT NULL,
	"ignored" boolean DEFAULT false NOT NULL,
	"approval" jsonb,
	"exit_code" integer,
	"stdout" text,
	"stderr" text,
	"output" text,
	"duration_ms" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"chain_seq" bigint,
	"hash" text,
	CONSTRAINT "hook_invocations_pkey" PRIMARY KEY("id","created_at"),
	CONSTRAINT "hook_invocations_chain_sealed_ck" CHECK ((chain_seq is null) = (hash is null))
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
ALTER SEQUENCE "hook_invocations_id_seq" OWNED BY "hook_invocations"."id";
--> statement-breakpoint
ALTER TABLE "hook_invocations_initial" ALTER COLUMN "id" DROP DEFAULT;
--> statement-breakpoint
CREATE INDEX "hook_invocations_run_idx" ON "hook_invocations" USING btree ("run_id");
--> statement-breakpoint
CREATE INDEX "hook_invocations_hook_idx" ON "hook_invocations" USING btree ("hook_key","created_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "hook_invocations_chain_seq_uq" ON "hook_invocations" USING btree ("chain_seq","created_at") WHERE chain_seq is not null;
--> statement-breakpoint
CREATE INDEX "hook_invocations_failures_idx" ON "hook_invocations" USING btree ("created_at") WHERE failed or timed_out;
--> statement-breakpoint
CREATE INDEX "hook_invocations_blocks_idx" ON "hook_invocations" USING btree ("created_at") WHERE verdict = 'block' and not ignored;
--> statement-breakpoint
CREATE INDEX "hook_invocations_unsealed_idx" ON "hook_invocations" USING btree ("id") WHERE chain_seq is null;
--> statement-breakpoint
DO $$
BEGIN
  EXECUTE format('ALTER TABLE hook_invocations ATTACH PARTITION hook_invocations_initial FOR VALUES FROM (MINVALUE) TO (%L)',
    (SELECT hookplane_initial_partition_bound(max(created_at)) FROM hook_invocations_initial));
END
$$;
--> statement-breakpoint
CREATE TABLE "hook_invocations_default" PARTITION OF "hook_invocations" DEFAULT;
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
-- A partition of the ledger refuses DELETE and TRUNCATE addressed to it (a DELETE through
-- hook_invocations fires the parent's guard only). hookplane_add_partition does the same for every
-- partition it creates.
CREATE FUNCTION hookplane_guard_ledger_partition(partition text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TRIGGER hook_invocations_partition_delete BEFORE DELETE ON %I FOR EACH STATEMENT EXECUTE FUNCTION hookplane_refuse_change()', partition);
  EXECUTE format('CREATE TRIGGER hook_invocations_partition_truncate BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION hookplane_refuse_change()', partition);
END
$$;
--> statement-breakpoint
SELECT hookplane_guard_ledger_partition('hook_invocations_initial');
--> statement-breakpoint
SELECT hookplane_guard_ledger_partition('hook_invocations_default');
--> statement-breakpoint
-- Creates the partition [lower, upper) of run_events or hook_invocations, named <table>_p<YYYYMMDD
-- of lower in UTC>: a plain table first, then ATTACH, which locks the parent only against other
-- DDL (SHARE UPDATE EXCLUSIVE), not against the appends. Returns its name.
CREATE FUNCTION hookplane_add_partition(parent text, lower timestamptz, upper timestamptz) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  partition text := parent || '_p' || to_char(lower AT TIME ZONE 'UTC', 'YYYYMMDD');
BEGIN
  IF parent NOT IN ('run_events', 'hook_invocations') THEN
    RAISE EXCEPTION 'hookplane_add_partition: % is not partitioned by time', parent;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', partition, parent);
  IF parent = 'hook_invocations' THEN
    PERFORM hookplane_guard_ledger_partition(partition);
  END IF;
  EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, partition, lower, upper);
  RETURN partition;
END
$$;
--> statement-breakpoint
-- The ledger's DELETE guard, with the second shape it accepts: the rows of deleted runs, each inside
-- a chain_gaps row of its own run (written just before, once the run row was gone).
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
  IF TG_TABLE_NAME = 'hook_invocations' THEN
    -- Gaps never overlap: the one holding a position is the last to start at or before it.
    SELECT NOT EXISTS (
             SELECT 1 FROM deleted_rows d
              WHERE d.run_id IS NULL
                 OR NOT EXISTS (SELECT 1 FROM (SELECT g.run_id, g.last_seq FROM chain_gaps g
                                                WHERE g.table_name = TG_TABLE_NAME AND g.first_seq <= d.chain_seq
                                                ORDER BY g.first_seq DESC LIMIT 1) g
                                 WHERE g.run_id = d.run_id AND g.last_seq >= d.chain_seq))
       AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = ANY (ARRAY(SELECT DISTINCT run_id FROM deleted_rows)))
      INTO gapped;
    IF gapped THEN
      RETURN NULL;
    END IF;
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
-- A gap is what deleting a run leaves: consecutive sealed positions all holding rows of that run,
-- the run itself already deleted, the hash that of the row at last_seq.
CREATE FUNCTION hookplane_chain_gap_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  in_range bigint;
  of_run bigint;
  linked boolean;
BEGIN
  IF NEW.table_name = 'hook_invocations' AND NEW.first_seq <= NEW.last_seq THEN
    SELECT count(*), count(*) FILTER (WHERE run_id = NEW.run_id) INTO in_range, of_run
      FROM hook_invocations WHERE chain_seq BETWEEN NEW.first_seq AND NEW.last_seq;
    SELECT EXISTS (SELECT 1 FROM hook_invocations WHERE chain_seq = NEW.last_seq AND hash = NEW.hash) INTO linked;
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
CREATE TRIGGER chain_gaps_written_by_run_deletion BEFORE INSERT ON chain_gaps
  FOR EACH ROW EXECUTE FUNCTION hookplane_chain_gap_guard();
--> statement-breakpoint
CREATE TRIGGER chain_gaps_append_only BEFORE UPDATE OR DELETE ON chain_gaps
  FOR EACH ROW EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
CREATE TRIGGER chain_gaps_append_only_truncate BEFORE TRUNCATE ON chain_gaps
  FOR EACH STATEMENT EXECUTE FUNCTION hookplane_refuse_change();
