-- A call a `limit` hook let through that a later hook of the chain blocked gives its token back:
-- a limit counts the calls that went through (lib/core/hooks/dispatch.ts, rate-limit-leases.ts).
-- Under the key's lock (as hp_lease_rate_limit), one hit leaves the newest bucket in the window
-- that holds more than the unspent tokens of the open leases counted in it (those are their
-- holders' to return, so a bucket never goes below what its leases will take back): the window's
-- sum is then the calls that went through plus the tokens still leased, which never exceeds max.
-- Nothing to give back: nothing changes (the call stays counted: refused early, never late).
CREATE OR REPLACE FUNCTION hp_release_rate_limit(p_project uuid, p_key text, p_window_ms bigint)
RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  now_ts timestamptz := clock_timestamp();
  width_ms bigint := greatest(1000, p_window_ms / 60);
  at_bucket timestamptz;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('rate-limit:' || p_project::text || ':' || p_key, 0));
  SELECT b.bucket INTO at_bucket FROM rate_limit_buckets b
    WHERE b.project_id = p_project AND b.key = p_key AND b.hits > 0
      AND b.bucket > now_ts - (p_window_ms + width_ms) * interval '1 millisecond'
      AND b.hits > coalesce((SELECT sum(l.tokens) FROM rate_limit_leases l WHERE l.project_id = p_project AND l.key = p_key AND l.bucket = b.bucket), 0)
    ORDER BY b.bucket DESC LIMIT 1;
  IF NOT FOUND THEN
    RETURN 0;
  END IF;
  UPDATE rate_limit_buckets b SET hits = b.hits - 1
    WHERE b.project_id = p_project AND b.key = p_key AND b.bucket = at_bucket;
  RETURN 1;
END
$$;
