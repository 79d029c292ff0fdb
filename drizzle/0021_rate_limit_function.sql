-- A limit hook's take in one statement (db/queries/rate-limits.ts): the key's lock, the window's
-- count and the new hit, each statement of a VOLATILE function seeing what the lock's last holder
-- committed. Held until the calling transaction ends, so two connections never count the same gap.
CREATE OR REPLACE FUNCTION hp_take_rate_limit(p_project uuid, p_key text, p_max integer, p_window_ms bigint)
RETURNS TABLE (allowed boolean, count integer) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  n integer;
  edge timestamptz;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('rate-limit:' || p_project::text || ':' || p_key, 0));
  edge := clock_timestamp() - p_window_ms * interval '1 millisecond';
  DELETE FROM rate_limit_hits h WHERE h.project_id = p_project AND h.key = p_key AND h.at <= edge;
  SELECT count(*)::integer INTO n FROM rate_limit_hits h WHERE h.project_id = p_project AND h.key = p_key AND h.at > edge;
  IF n >= p_max THEN
    RETURN QUERY SELECT false, n;
    RETURN;
  END IF;
  INSERT INTO rate_limit_hits (project_id, key, at) VALUES (p_project, p_key, clock_timestamp());
  RETURN QUERY SELECT true, n + 1;
END
$$;
