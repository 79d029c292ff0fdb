CREATE TABLE "rate_limit_leases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"key" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"tokens" integer NOT NULL,
	"ends_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "rate_limit_leases" ADD CONSTRAINT "rate_limit_leases_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "rate_limit_leases_key_idx" ON "rate_limit_leases" USING btree ("project_id","key");--> statement-breakpoint
-- Like the buckets, leases are a throttle, not a record: no WAL (0033).
ALTER TABLE "rate_limit_leases" SET UNLOGGED;
--> statement-breakpoint
-- A limit hook's take (it replaces hp_take_rate_limit, dropped below), which may hand the calling process tokens in advance (a lease), so its next
-- calls on the key need no statement (lib/features/hooks/rate-limit-leases.ts). Under the key's
-- lock, as hp_take_rate_limit:
-- * a lease its holder left unreturned p_grace_ms past its end counts as spent (its tokens stay in
--   their bucket);
-- * below the limit, the call is counted, and with it up to p_want - 1 more tokens when the window
--   is far from full (at most a quarter of what is left): all in the bucket where the lease ends,
--   so every window that holds a moment the holder may spend one counts it (no window ever holds
--   more than p_max); `granted` is what the holder may spend until p_lease_ms after it asked;
-- * at the limit, while other processes hold tokens they may not spend, the count is not yet
--   known: the caller waits `wait_ms` (for those leases to end) and asks again. A refusal's count
--   is then what was let through, never tokens held unspent.
CREATE OR REPLACE FUNCTION hp_lease_rate_limit(p_project uuid, p_key text, p_max integer, p_window_ms bigint, p_want integer, p_lease_ms integer, p_grace_ms integer)
RETURNS TABLE (allowed boolean, count integer, granted integer, lease uuid, wait_ms integer) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  n integer;
  held integer;
  first_end timestamptz;
  now_ts timestamptz := clock_timestamp();
  width_ms bigint := greatest(1000, p_window_ms / 60);
  k integer;
  at_bucket timestamptz;
  new_lease uuid;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('rate-limit:' || p_project::text || ':' || p_key, 0));
  DELETE FROM rate_limit_buckets b WHERE b.project_id = p_project AND b.key = p_key
    AND b.bucket <= now_ts - (p_window_ms + width_ms) * interval '1 millisecond';
  DELETE FROM rate_limit_leases l WHERE l.project_id = p_project AND l.key = p_key
    AND l.ends_at <= now_ts - p_grace_ms * interval '1 millisecond';
  SELECT coalesce(sum(b.hits), 0)::integer INTO n FROM rate_limit_buckets b WHERE b.project_id = p_project AND b.key = p_key;
  IF n >= p_max THEN
    SELECT coalesce(sum(l.tokens), 0)::integer, min(l.ends_at) INTO held, first_end
      FROM rate_limit_leases l WHERE l.project_id = p_project AND l.key = p_key;
    IF held > 0 AND n - held < p_max THEN
      RETURN QUERY SELECT false, n - held, 0, NULL::uuid,
        greatest(25, ceil(extract(epoch FROM first_end - now_ts) * 1000))::integer;
      RETURN;
    END IF;
    RETURN QUERY SELECT false, n, 0, NULL::uuid, 0;
    RETURN;
  END IF;
  k := least(p_want, (p_max - n) / 4);
  IF k < 2 OR p_lease_ms <= 0 THEN
    k := 1;
  END IF;
  at_bucket := to_timestamp(floor(extract(epoch FROM now_ts + (CASE WHEN k > 1 THEN p_lease_ms ELSE 0 END) * interval '1 millisecond') * 1000 / width_ms) * width_ms / 1000.0);
  INSERT INTO rate_limit_buckets AS b (project_id, key, bucket, hits) VALUES (p_project, p_key, at_bucket, k)
    ON CONFLICT (project_id, key, bucket) DO UPDATE SET hits = b.hits + k;
  IF k = 1 THEN
    RETURN QUERY SELECT true, n + 1, 0, NULL::uuid, 0;
    RETURN;
  END IF;
  INSERT INTO rate_limit_leases (project_id, key, bucket, tokens, ends_at)
    VALUES (p_project, p_key, at_bucket, k - 1, now_ts + p_lease_ms * interval '1 millisecond')
    RETURNING id INTO new_lease;
  RETURN QUERY SELECT true, n + 1, k - 1, new_lease, 0;
END
$$;
--> statement-breakpoint
-- A lease returned by its holder: what it did not spend leaves the count (at most what it was
-- given). A lease already counted as spent (returned after its grace) changes nothing.
CREATE OR REPLACE FUNCTION hp_settle_rate_limit_lease(p_lease uuid, p_unspent integer)
RETURNS void LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  found_lease rate_limit_leases%ROWTYPE;
BEGIN
  SELECT * INTO found_lease FROM rate_limit_leases l WHERE l.id = p_lease;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('rate-limit:' || found_lease.project_id::text || ':' || found_lease.key, 0));
  DELETE FROM rate_limit_leases l WHERE l.id = p_lease RETURNING * INTO found_lease;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  UPDATE rate_limit_buckets b SET hits = b.hits - least(greatest(p_unspent, 0), found_lease.tokens)
    WHERE b.project_id = found_lease.project_id AND b.key = found_lease.key AND b.bucket = found_lease.bucket;
END
$$;
--> statement-breakpoint
-- The take without leases (0028): hp_lease_rate_limit with p_want 1 is the same take, and also
-- waits on other processes' leases, which this one would count as spent.
DROP FUNCTION IF EXISTS hp_take_rate_limit(uuid, text, integer, bigint);
