/**
 * `limit` hooks counted in the database, with tokens leased to this process while a window is far
 * from full (issue 27): a per-person limit counts every call of that person, and a statement a
 * call to count it was nearly all of what per-person policy cost on the hook path (+30% of the web
 * process's CPU a call). A take that finds the window far from full is handed up to a quarter of
 * what is left (hp_lease_rate_limit, drizzle/0035); the next calls on that key in this process
 * spend those tokens with no statement until the lease ends (LEASE_MS after it was asked for),
 * when the unspent ones are returned.
 *
 * What holds, across every web process on one database:
 * - **never more than `max` in a window**: leased tokens are counted when leased, in the bucket
 *   where the lease ends, and spent only before it ends (the holder's clock starts when it asked);
 * - **a refusal counts only what was let through**: at the limit, while another process holds
 *   tokens it may not spend, the caller waits for that lease to end (at most LEASE_MS, or
 *   GRACE_MS more when its holder is gone) and asks again; near the limit no tokens are leased,
 *   so every call is counted as it comes, as without leases;
 * - **a process that ends** returns its leases on shutdown (settleRateLimitLeases); one that dies
 *   leaves them counted as spent (conservative: refused early, never let through late) until
 *   they leave the window.
 * The count an allowed call's ledger row names is the key's count when the lease was taken plus
 * what this process spent of it since (other processes' calls meanwhile not included).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Db } from "@/db/client";
import { leaseRateLimit, releaseRateLimit, settleRateLimitLease, type RateLimitLeaseAnswer, type RateLimitLeaseRequest } from "@/db/queries/rate-limits";
import type { RateLimitPort } from "@/lib/core/hooks/ports";
import { logger } from "@/lib/platform/logger";

/** How long a lease's tokens may be spent. Short: at the limit, others may wait this long. */
export const LEASE_MS = 1_000;
/** How long past its end a lease not returned waits before it counts as spent (its holder is gone). */
export const GRACE_MS = 5_000;
/** Windows shorter than this are counted call by call: a lease would be a large part of them. */
const MIN_LEASED_WINDOW_MS = 10_000;
const FIRST_WANT = 16;
const MAX_WANT = 512;
/** Keys remembered (a `per: "session"` limit has one a session): past this, the idle ones are forgotten. */
const MAX_KEYS = 10_000;

export interface LeaseStore {
  lease(request: RateLimitLeaseRequest): Promise<RateLimitLeaseAnswer>;
  settle(params: { lease: string; unspent: number }): Promise<void>;
  /** One call counted on the key leaves its window (releaseRateLimit). */
  release(params: { projectId: string; key: string; windowMs: number }): Promise<unknown>;
}

interface Held {
  lease: string;
  left: number;
  max: number;
  windowMs: number;
  /** performance.now() past which no token is spent. */
  endsAt: number;
  /** The count as of the last token spent here. */
  count: number;
  timer: NodeJS.Timeout;
}

/** Per key: the lease held, the lease being asked for (one at a time), and how many to ask for next. */
interface KeyState {
  held?: Held;
  asking?: Promise<unknown>;
  want: number;
  /** Whether the last answer left room to lease (far from the limit); else calls go one by one, at once. */
  leasable: boolean;
}

export interface LeasedRateLimits {
  /** The rate limit port of a run in `projectId`. */
  port(projectId: string): RateLimitPort;
  /** Returns every lease held (shutdown). */
  settleAll(): Promise<void>;
}

export function createLeasedRateLimits(store: LeaseStore, options: { leaseMs?: number; graceMs?: number } = {}): LeasedRateLimits {
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const graceMs = options.graceMs ?? GRACE_MS;
  const keys = new Map<string, KeyState>();
  const settling = new Set<Promise<void>>();

  const settle = (state: KeyState, held: Held) => {
    clearTimeout(held.timer);
    if (state.held === held) state.held = undefined;
    // Mostly unspent at its end: ask for fewer next time.
    if (held.left > state.want / 2) state.want = Math.max(2, state.want >> 1);
    const done = store
      .settle({ lease: held.lease, unspent: held.left })
      .catch((error) => logger.warn({ err: error, lease: held.lease }, "a rate limit lease was not returned: its unspent tokens count until they leave the window"))
      .finally(() => settling.delete(done));
    settling.add(done);
    held.left = 0;
  };

  const spendHeld = (state: KeyState, max: number, windowMs: number): { allowed: true; count: number; lease: string } | undefined => {
    const held = state.held;
    if (!held || held.left === 0 || held.max !== max || held.windowMs !== windowMs) return undefined;
    if (performance.now() >= held.endsAt) {
      settle(state, held);
      return undefined;
    }
    held.left -= 1;
    held.count += 1;
    if (held.left === 0) {
      // Spent whole before its end: closed at once (others at the limit wait on an open lease), and the next ask asks for more.
      state.want = Math.min(MAX_WANT, state.want * 2);
      settle(state, held);
    }
    return { allowed: true, count: held.count, lease: held.lease };
  };

  /** Forgets the keys holding no lease and asking nothing (all of them but the busy few), oldest first. */
  const forgetIdle = () => {
    for (const [id, state] of keys) {
      if (keys.size < MAX_KEYS / 2) break;
      if (!state.held && !state.asking) keys.delete(id);
    }
  };

  const ask = async (state: KeyState, projectId: string, key: string, max: number, windowMs: number): Promise<RateLimitLeaseAnswer> => {
    if (state.held) settle(state, state.held);
    const leasing = state.leasable && windowMs >= MIN_LEASED_WINDOW_MS;
    const askedAt = performance.now();
    const answer = await store.lease({ projectId, key, max, windowMs, want: leasing ? state.want : 1, leaseMs: leasing ? leaseMs : 0, graceMs });
    state.leasable = (max - answer.count) / 4 >= 2;
    if (answer.lease && answer.granted > 0) {
      const held: Held = { lease: answer.lease, left: answer.granted, max, windowMs, endsAt: askedAt + leaseMs, count: answer.count, timer: undefined as never };
      held.timer = setTimeout(() => settle(state, held), Math.max(0, held.endsAt - performance.now()));
      held.timer.unref();
      state.held = held;
    }
    return answer;
  };

  return {
    port(projectId) {
      return {
        takeHeld({ key, max, windowMs }) {
          const state = keys.get(`${projectId}\u0000${key}`);
          // While another call asks for a lease, the calls wait their turn in take().
          return state && !state.asking ? spendHeld(state, max, windowMs) : undefined;
        },
        release({ key, windowMs }, taken) {
          // The lease the token came from, still open, takes it back (returned unspent at its end,
          // or spent again); else the count where the call went gives one back.
          const held = keys.get(`${projectId}\u0000${key}`)?.held;
          if (held && taken.lease !== undefined && held.lease === taken.lease && performance.now() < held.endsAt) {
            held.left += 1;
            held.count = Math.max(0, held.count - 1);
            return;
          }
          const giving = store
            .release({ projectId, key, windowMs })
            .catch((error) => logger.warn({ err: error, key }, "a rate limit call was not given back: it counts until it leaves the window"))
            .then(() => undefined)
            .finally(() => settling.delete(giving));
          settling.add(giving);
        },
        async take({ key, max, windowMs }, signal) {
          const id = `${projectId}\u0000${key}`;
          let state = keys.get(id);
          if (!state) {
            if (keys.size >= MAX_KEYS) forgetIdle();
            keys.set(id, (state = { want: FIRST_WANT, leasable: true }));
          }
          const deadline = performance.now() + leaseMs + graceMs + 1_000;
          for (;;) {
            const spent = spendHeld(state, max, windowMs);
            if (spent) return spent;
            // A lease being asked for may cover this call: wait for it rather than ask beside it.
            if (state.asking) {
              await state.asking.catch(() => undefined);
              continue;
            }
            const asking = ask(state, projectId, key, max, windowMs);
            // Only an ask that may lease makes the others wait; near the limit calls go at once.
            if (state.leasable) state.asking = asking;
            let answer: RateLimitLeaseAnswer;
            try {
              answer = await asking;
            } finally {
              if (state.asking === asking) state.asking = undefined;
            }
            if (answer.waitMs > 0 && performance.now() < deadline) {
              await sleep(answer.waitMs, undefined, { signal });
              continue;
            }
            return { allowed: answer.allowed, count: answer.count };
          }
        },
      };
    },
    async settleAll() {
      for (const state of keys.values()) {
        if (state.held) settle(state, state.held);
      }
      await Promise.all(settling);
    },
  };
}

const byDb = new WeakMap<Db, LeasedRateLimits>();

/** This process's leased rate limits on a database (one per handle: tests open several). */
export function databaseRateLimits(db: Db): LeasedRateLimits {
  let limits = byDb.get(db);
  if (!limits) {
    limits = createLeasedRateLimits({
      lease: (request) => leaseRateLimit(db, request),
      settle: (params) => settleRateLimitLease(db, params),
      release: (params) => releaseRateLimit(db, params),
    });
    byDb.set(db, limits);
  }
  return limits;
}

/** Returns this process's leases on a database before it closes (lib/process/background.ts). */
export async function settleRateLimitLeases(db: Db): Promise<void> {
  await byDb.get(db)?.settleAll();
}
