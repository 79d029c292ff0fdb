/**
 * API tokens as last read, kept a few seconds per process: a coding agent's bridge sends its token
 * with every hook call, and reading it (three joins) was a fifth of the call. The bound on
 * staleness is CREDENTIAL_TTL_MS after the change commits: a revoked token, a demoted or removed
 * owner, a deleted project is refused at once by the process that made the change (announcing
 * it forgets the cache: access-changes.ts) and by every web process that hears the access notice
 * (each one's stream hub forgets it), and within the bound by one that did not (its LISTEN
 * connection was down). On globalThis: Next's bundled routes and server.ts share one cache.
 */
import type { Db } from "../client";
import { getActiveToken } from "./api-tokens";

export const CREDENTIAL_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

type TokenRow = Awaited<ReturnType<typeof getActiveToken>>;
type Entry = { row: Promise<TokenRow>; until: number };
type Cache = { byDb: WeakMap<Db, Map<string, Entry>>; generation: number; quietUntil: number };

const KEY = Symbol.for("hookplane.credentialCache");
const cache = ((globalThis as typeof globalThis & { [KEY]?: Cache })[KEY] ??= { byDb: new WeakMap(), generation: 0, quietUntil: 0 });

/**
 * How long after a change is announced nothing read is kept: the announcing transaction has not
 * committed yet, and a read made meanwhile still sees the old row.
 */
const QUIET_MS = 2_000;

/** The active token of this hash (undefined: none, or revoked), read at most CREDENTIAL_TTL_MS ago. */
export function cachedActiveToken(db: Db, tokenHash: string): Promise<TokenRow> {
  let entries = cache.byDb.get(db);
  if (!entries) cache.byDb.set(db, (entries = new Map()));
  const now = Date.now();
  const hit = entries.get(tokenHash);
  if (hit && hit.until > now) return hit.row;
  const generation = cache.generation;
  const row = getActiveToken(db, { tokenHash });
  if (now < cache.quietUntil) return row;
  const entry = { row, until: now + CREDENTIAL_TTL_MS };
  if (entries.size >= MAX_ENTRIES) entries.clear();
  entries.set(tokenHash, entry);
  const map = entries;
  row.then(
    // A notice that arrived while this read was under way may be about it: not kept.
    () => generation !== cache.generation && map.get(tokenHash) === entry && map.delete(tokenHash),
    () => map.get(tokenHash) === entry && map.delete(tokenHash),
  );
  return row;
}

/** Marks a cached row as stamped "last used" now, so the next call within the minute does not stamp it again. */
export function noteTokenUsed(row: NonNullable<TokenRow>): void {
  row.lastUsedAt = new Date();
}

/**
 * Forgets every cached credential: access changed (a token revoked, a role changed, a project
 * deleted), here (before that change commits: nothing read for a while is kept) or in another process.
 */
export function forgetCredentials(options: { uncommitted?: boolean } = {}): void {
  cache.generation++;
  cache.byDb = new WeakMap();
  if (options.uncommitted) cache.quietUntil = Date.now() + QUIET_MS;
}
