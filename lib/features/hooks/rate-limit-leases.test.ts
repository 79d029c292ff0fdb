/**
 * The process side of leased rate limits (rate-limit-leases.ts), on a store that records what it
 * is asked (the database's side is rate-limit-leases.db.test.ts): concurrent calls on a key wait
 * for one ask instead of asking beside it; a lease spent whole is closed at once and the next ask
 * wants more; one mostly unspent at its end is returned and the next wants fewer; a changed limit
 * does not spend the old lease; idle keys are forgotten past the bound.
 */
import { expect, test } from "vitest";
import type { RateLimitLeaseRequest } from "@/db/queries/rate-limits";
import { createLeasedRateLimits, type LeaseStore } from "./rate-limit-leases";

/** A store granting as hp_lease_rate_limit does (a quarter of what is left, at most `want`), recording each ask and return. */
function recordingStore(delayMs = 5) {
  const asks: RateLimitLeaseRequest[] = [];
  const settles: { lease: string; unspent: number }[] = [];
  const releases: { key: string; windowMs: number }[] = [];
  const counts = new Map<string, number>();
  let next = 0;
  const store: LeaseStore = {
    async lease(request) {
      asks.push(request);
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      const n = counts.get(request.key) ?? 0;
      if (n >= request.max) return { allowed: false, count: n, granted: 0, waitMs: 0 };
      const k = request.leaseMs > 0 ? Math.min(request.want, Math.floor((request.max - n) / 4)) : 1;
      const take = k < 2 ? 1 : k;
      counts.set(request.key, n + take);
      return { allowed: true, count: n + 1, granted: take - 1, ...(take > 1 && { lease: `lease-${++next}` }), waitMs: 0 };
    },
    async settle(params) {
      settles.push(params);
    },
    async release(params) {
      releases.push({ key: params.key, windowMs: params.windowMs });
    },
  };
  return { store, asks, settles, releases };
}

test("a call given back returns its token to the open lease it came from; with no lease open, to the count where it went", async () => {
  const { store, asks, settles, releases } = recordingStore(0);
  const port = createLeasedRateLimits(store, { leaseMs: 50 }).port("p");
  const request = { key: "k", max: 1_000, windowMs: 60_000 };
  // The first call is counted by the ask itself (not a lease's token); the next spends the lease.
  const first = await port.take(request);
  expect(first).toEqual({ allowed: true, count: 1 });
  const second = port.takeHeld!(request)!;
  expect(second).toEqual({ allowed: true, count: 2, lease: "lease-1" });
  port.release!(request, second);
  // The token is the lease's again: the next call spends it, and the count it names is as before.
  const third = port.takeHeld!(request)!;
  expect(third).toEqual({ allowed: true, count: 2, lease: "lease-1" });
  expect(releases).toEqual([]);
  // A call the ask counted goes back to the store's count, not into the lease.
  port.release!(request, first);
  expect(releases).toEqual([{ key: "k", windowMs: 60_000 }]);
  await new Promise((r) => setTimeout(r, 80));
  // The lease ended (15 granted, 1 spent): 14 go back; its token given back now goes to the store.
  expect(settles).toEqual([{ lease: "lease-1", unspent: 14 }]);
  port.release!(request, third);
  expect(releases).toEqual([
    { key: "k", windowMs: 60_000 },
    { key: "k", windowMs: 60_000 },
  ]);
  expect(asks).toHaveLength(1);
});

test("concurrent calls on a new key wait for one ask, then spend its lease; the count each names goes up by one", async () => {
  const { store, asks } = recordingStore();
  const port = createLeasedRateLimits(store).port("p");
  const answers = await Promise.all(Array.from({ length: 10 }, () => port.take({ key: "k", max: 1_000, windowMs: 60_000 })));
  expect(asks).toHaveLength(1);
  expect(asks[0]).toMatchObject({ want: 16, leaseMs: 1_000 });
  expect(answers.map((a) => a.count).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
});

test("a lease spent whole is closed at once and the next ask wants twice as many; one mostly unspent is returned at its end and the next wants fewer", async () => {
  const { store, asks, settles } = recordingStore();
  const limits = createLeasedRateLimits(store, { leaseMs: 100 });
  const port = limits.port("p");
  for (let i = 0; i < 17; i++) await port.take({ key: "k", max: 100_000, windowMs: 60_000 });
  // 16 from the first lease (its own call and 15 more), closed with nothing unspent; the 17th asked for 32.
  expect(asks.map((a) => a.want)).toEqual([16, 32]);
  expect(settles).toEqual([{ lease: "lease-1", unspent: 0 }]);
  await new Promise((r) => setTimeout(r, 150));
  expect(settles).toEqual([
    { lease: "lease-1", unspent: 0 },
    { lease: "lease-2", unspent: 31 },
  ]);
  await port.take({ key: "k", max: 100_000, windowMs: 60_000 });
  expect(asks.at(-1)?.want).toBe(16);
  await limits.settleAll();
});

test("a limit changed meanwhile does not spend the old lease: it is returned and the new limit asked", async () => {
  const { store, asks, settles } = recordingStore();
  const limits = createLeasedRateLimits(store);
  const port = limits.port("p");
  await port.take({ key: "k", max: 1_000, windowMs: 60_000 });
  await port.take({ key: "k", max: 10, windowMs: 60_000 });
  expect(asks.map((a) => a.max)).toEqual([1_000, 10]);
  expect(settles).toEqual([{ lease: "lease-1", unspent: 15 }]);
  await limits.settleAll();
});

test("short windows are asked call by call; past 10,000 keys the idle ones are forgotten (each starts again from the first want)", async () => {
  const { store, asks } = recordingStore(0);
  const limits = createLeasedRateLimits(store);
  const port = limits.port("p");
  await port.take({ key: "short", max: 1_000, windowMs: 5_000 });
  await port.take({ key: "short", max: 1_000, windowMs: 5_000 });
  expect(asks.map((a) => [a.want, a.leaseMs])).toEqual([
    [1, 0],
    [1, 0],
  ]);
  asks.length = 0;
  for (let i = 0; i < 10_001; i++) await port.take({ key: `session-${i}`, max: 3, windowMs: 60_000 });
  // The first key was forgotten: it is new again (a first ask that may lease), not remembered as near its limit.
  await port.take({ key: "session-0", max: 3, windowMs: 60_000 });
  expect(asks.at(-1)).toMatchObject({ key: "session-0", want: 16, leaseMs: 1_000 });
  await port.take({ key: "session-10000", max: 3, windowMs: 60_000 });
  expect(asks.at(-1)).toMatchObject({ key: "session-10000", want: 1, leaseMs: 0 });
  await limits.settleAll();
});

test("takeHeld spends a held token at once, counting on from the lease; nothing held, a changed limit or an ask under way leave it to take", async () => {
  const { store, asks } = recordingStore();
  const limits = createLeasedRateLimits(store);
  const port = limits.port("p");
  const limit = { key: "k", max: 1_000, windowMs: 60_000 };
  expect(port.takeHeld!(limit)).toBeUndefined();
  expect(await port.take(limit)).toEqual({ allowed: true, count: 1 });
  // The lease of 16 holds 15 more: each spent in step, no ask.
  const held = Array.from({ length: 15 }, () => port.takeHeld!(limit));
  expect(held.map((h) => h?.count)).toEqual(Array.from({ length: 15 }, (_, i) => i + 2));
  expect(asks).toHaveLength(1);
  // Spent whole (closed at once): the next has to ask.
  expect(port.takeHeld!(limit)).toBeUndefined();
  expect(port.takeHeld!({ ...limit, key: "other" })).toBeUndefined();
  const asking = port.take(limit);
  // While that ask is out, the calls wait their turn in take() (single flight), even with tokens about to come.
  expect(port.takeHeld!(limit)).toBeUndefined();
  expect((await asking).count).toBe(17);
  expect(port.takeHeld!({ ...limit, max: 999 })).toBeUndefined();
  expect(port.takeHeld!(limit)?.count).toBe(18);
  expect(asks).toHaveLength(2);
  await limits.settleAll();
});

test("takeHeld never spends another project's tokens, nor another key's: the same limit name in project q asks its own", async () => {
  const { store, asks } = recordingStore();
  const limits = createLeasedRateLimits(store);
  const limit = { key: "k", max: 1_000, windowMs: 60_000 };
  await limits.port("p").take(limit);
  expect(limits.port("p").takeHeld!(limit)?.count).toBe(2);
  expect(limits.port("q").takeHeld!(limit)).toBeUndefined();
  expect(limits.port("p").takeHeld!({ ...limit, key: "k2" })).toBeUndefined();
  expect((await limits.port("q").take(limit)).allowed).toBe(true);
  expect(asks.map((a) => a.projectId)).toEqual(["p", "q"]);
  await limits.settleAll();
});
