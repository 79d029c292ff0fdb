CREATE TABLE "rate_limit_buckets" (
	"project_id" uuid NOT NULL,
	"key" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"hits" integer NOT NULL,
	CONSTRAINT "rate_limit_buckets_project_id_key_bucket_pk" PRIMARY KEY("project_id","key","bucket")
);
--> statement-breakpoint
ALTER TABLE "rate_limit_buckets" ADD CONSTRAINT "rate_limit_buckets_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- A limit hook's take, counted in buckets (db/schema.ts, rateLimitBuckets): the key's lock, the
-- buckets that still overlap the window summed (at most ~61 rows, whatever the limit), and the hit
-- added to the current bucket. A bucket counts until it lies wholly before the window: no window
-- holds more than p_max; a call may be refused up to one bucket early.
CREATE OR REPLACE FUNCTION hp_take_rate_limit(p_project uuid, p_key text, p_max integer, p_window_ms bigint)
RETURNS TABLE (allowed boolean, count integer) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  n integer;
  now_ts timestamptz := clock_timestamp();
  width_ms bigint := greatest(1000, p_window_ms / 60);
  current_bucket timestamptz;
  edge timestamptz;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('rate-limit:' || p_project::text || ':' || p_key, 0));
  current_bucket := to_timestamp((floor(extract(epoch from now_ts) * 1000 / width_ms) * width_ms) / 1000.0);
  edge := now_ts - p_window_ms * interval '1 millisecond' - width_ms * interval '1 millisecond';
  DELETE FROM rate_limit_buckets b WHERE b.project_id = p_project AND b.key = p_key AND b.bucket <= edge;
  SELECT coalesce(sum(b.hits), 0)::integer INTO n FROM rate_limit_buckets b WHERE b.project_id = p_project AND b.key = p_key;
  IF n >= p_max THEN
    RETURN QUERY SELECT false, n;
    RETURN;
  END IF;
  INSERT INTO rate_limit_buckets AS b (project_id, key, bucket, hits) VALUES (p_project, p_key, current_bucket, 1)
    ON CONFLICT (project_id, key, bucket) DO UPDATE SET hits = b.hits + 1;
  RETURN QUERY SELECT true, n + 1;
END
$$;
