/**
 * Tokens of a `limit` hook leased to a process (rate-limit-leases.ts, drizzle/0035), against the
 * real database function, from each side where a lease could let through more than `max` or
 * refuse a call that should pass:
 * - two processes (two pools on PostgreSQL) taking at once: exactly `max` through, every refusal
 *   naming `max`, and the window's count exactly what was let through once the leases are returned;
 * - far from the limit, calls spend leased tokens without a statement each;
 * - at the limit while another process holds unspent tokens: the call waits for that lease to end
 *   and passes on what was returned; when the holder died instead, its tokens count as spent after
 *   the grace and the call is refused with the count;
 * - short windows are counted call by call; another project's key is a window of its own.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { openDatabase, type DbHandle } from "@/db/client";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addProject } from "@/test/people";
import { createLeasedRateLimits, type LeaseStore } from "./rate-limit-leases";
import { leaseRateLimit, releaseRateLimit, settleRateLimitLease } from "@/db/queries/rate-limits";
import type { Db } from "@/db/client";

let t: TestDatabase;
let second: DbHandle | undefined;
const sent: string[] = [];

beforeAll(async () => {
  t = await createTestDatabase({ onStatement: (text) => sent.push(text) });
  // A second web process's own pool on the same PostgreSQL database; PGlite has one process.
  if (t.databaseUrl) second = await openDatabase({ databaseUrl: t.databaseUrl });
});
afterAll(async () => {
  await second?.close();
  await t?.drop();
});

const storeOf = (db: Db): LeaseStore => ({
  lease: (request) => leaseRateLimit(db, request),
  settle: (params) => settleRateLimitLease(db, params),
  release: (params) => releaseRateLimit(db, params),
});
const limits = (db: Db, options?: { leaseMs?: number; graceMs?: number }) => createLeasedRateLimits(storeOf(db), options);

async function counted(key: string): Promise<{ hits: number; leases: number }> {
  const [row] = (
    await t.execute(
      "select (select coalesce(sum(hits), 0)::integer from rate_limit_buckets where key = $1) as hits, (select count(*)::integer from rate_limit_leases where key = $1) as leases",
      [key],
    )
  ).rows as { hits: number; leases: number }[];
  return row;
}

test("two processes taking from one window at once: exactly max through, each refusal naming max, and the count exact once leases are returned", async () => {
  const processes = [limits(t.db), limits((second ?? t).db)];
  const ports = processes.map((p) => p.port(DEFAULT_PROJECT_ID));
  const key = "agent:x/bash-60/user:dev";
  const takes = await Promise.all(Array.from({ length: 100 }, (_, i) => ports[i % 2].take({ key, max: 60, windowMs: 60_000 })));
  expect(takes.filter((r) => r.allowed)).toHaveLength(60);
  expect(takes.filter((r) => !r.allowed).map((r) => r.count)).toEqual(Array(40).fill(60));
  // Some of the 60 went through on leased tokens: fewer statements than calls.
  await Promise.all(processes.map((p) => p.settleAll()));
  expect(await counted(key)).toEqual({ hits: 60, leases: 0 });
  // A lease was handed out: the first take found the window empty.
  expect(Math.max(...takes.filter((r) => r.allowed).map((r) => r.count))).toBe(60);
});

test("far from the limit, calls spend leased tokens: a few statements for hundreds of calls, and unspent tokens leave the count when returned", async () => {
  const process1 = limits(t.db);
  const port = process1.port(DEFAULT_PROJECT_ID);
  const key = "agent:x/per-person/user:busy";
  sent.length = 0;
  for (let i = 0; i < 300; i++) expect((await port.take({ key, max: 1_000_000, windowMs: 60_000 })).allowed).toBe(true);
  if (t.kind === "postgres") expect(sent.filter((s) => s.includes("hp_lease_rate_limit")).length).toBeLessThan(20);
  // Counted: the 300 spent and what the last lease holds unspent.
  const held = await counted(key);
  expect(held.hits).toBeGreaterThanOrEqual(300);
  expect(held.leases).toBe(1);
  await process1.settleAll();
  expect(await counted(key)).toEqual({ hits: 300, leases: 0 });
});

test("at the limit while another process holds unspent tokens, a call waits for that lease to end and passes on what it returned", async () => {
  const holder = limits(t.db, { leaseMs: 1_500 });
  const other = limits((second ?? t).db, { leaseMs: 1_500 });
  const key = "agent:x/limit-20/user:wait";
  // The holder's first call leases min(16, 20 / 4) = 5 tokens: 1 spent, 4 held unspent.
  expect(await holder.port(DEFAULT_PROJECT_ID).take({ key, max: 20, windowMs: 60_000 })).toEqual({ allowed: true, count: 1 });
  expect(await counted(key)).toEqual({ hits: 5, leases: 1 });
  const port = other.port(DEFAULT_PROJECT_ID);
  for (let i = 0; i < 15; i++) expect((await port.take({ key, max: 20, windowMs: 60_000 })).allowed).toBe(true);
  // 16 let through, 20 counted: the next call cannot be refused on tokens nobody spent.
  const started = performance.now();
  const next = await port.take({ key, max: 20, windowMs: 60_000 });
  expect(next).toEqual({ allowed: true, count: 17 });
  expect(performance.now() - started).toBeGreaterThanOrEqual(200);
  await Promise.all([holder.settleAll(), other.settleAll()]);
  expect(await counted(key)).toEqual({ hits: 17, leases: 0 });
});

test("a holder that died: its tokens count as spent after the grace, and the call is refused naming the count", async () => {
  const dead = limits(t.db, { leaseMs: 1_000, graceMs: 600 });
  const other = limits((second ?? t).db, { leaseMs: 1_000, graceMs: 600 });
  const key = "agent:x/limit-20/user:dead";
  expect((await dead.port(DEFAULT_PROJECT_ID).take({ key, max: 20, windowMs: 60_000 })).allowed).toBe(true);
  // The holder never returns its lease (its process ended without a shutdown): drop its timer's work.
  const port = other.port(DEFAULT_PROJECT_ID);
  const [{ id }] = (await t.execute("select id from rate_limit_leases where key = $1", [key])).rows as { id: string }[];
  await t.execute("update rate_limit_leases set id = gen_random_uuid() where id = $1", [id]);
  for (let i = 0; i < 15; i++) expect((await port.take({ key, max: 20, windowMs: 60_000 })).allowed).toBe(true);
  const started = performance.now();
  const refused = await port.take({ key, max: 20, windowMs: 60_000 });
  const waited = performance.now() - started;
  expect(refused).toEqual({ allowed: false, count: 20 });
  // It waited for the lease's end and its grace, not longer than a lease and a grace past them.
  expect(waited).toBeGreaterThanOrEqual(500);
  expect(waited).toBeLessThan(4_000);
  await Promise.all([dead.settleAll(), other.settleAll()]);
  // The dead holder's unspent tokens stay counted (refused early, never let through late).
  expect(await counted(key)).toEqual({ hits: 20, leases: 0 });
});

test("a short window is counted call by call; another project's key is a window of its own", async () => {
  const process1 = limits(t.db);
  const port = process1.port(DEFAULT_PROJECT_ID);
  const key = "agent:x/per-second/user:quick";
  for (let i = 0; i < 5; i++) expect(await port.take({ key, max: 100, windowMs: 5_000 })).toEqual({ allowed: true, count: i + 1 });
  expect(await counted(key)).toEqual({ hits: 5, leases: 0 });

  const elsewhere = await addProject(t.db, { slug: "leases-elsewhere" });
  const shared = "agent:x/limit-3/user:same";
  const here = process1.port(DEFAULT_PROJECT_ID);
  const there = process1.port(elsewhere.id);
  for (let i = 0; i < 3; i++) expect((await here.take({ key: shared, max: 3, windowMs: 60_000 })).allowed).toBe(true);
  expect(await here.take({ key: shared, max: 3, windowMs: 60_000 })).toEqual({ allowed: false, count: 3 });
  expect(await there.take({ key: shared, max: 3, windowMs: 60_000 })).toEqual({ allowed: true, count: 1 });
  await process1.settleAll();
});

test("a call given back leaves the window: at the limit, the next call goes through; never another process's leased tokens; another project's key untouched", async () => {
  const near = limits(t.db);
  const port = near.port(DEFAULT_PROJECT_ID);
  const key = "agent:x/limit-3/user:gives-back";
  const request = { key, max: 3, windowMs: 60_000 };
  for (let i = 0; i < 3; i++) expect((await port.take(request)).allowed).toBe(true);
  expect(await port.take(request)).toEqual({ allowed: false, count: 3 });
  // The third call was blocked by a later hook: it leaves the count, and the next call takes its place.
  expect(await releaseRateLimit(t.db, { projectId: DEFAULT_PROJECT_ID, key, windowMs: 60_000 })).toBe(true);
  expect(await counted(key)).toEqual({ hits: 2, leases: 0 });
  expect(await port.take(request)).toEqual({ allowed: true, count: 3 });
  // Nothing left to give back on a key nobody counted: nothing changes.
  expect(await releaseRateLimit(t.db, { projectId: DEFAULT_PROJECT_ID, key: "agent:x/none/user:nobody", windowMs: 60_000 })).toBe(false);

  // Another process holds a lease on a key far from its limit (its first call counted, 15 tokens
  // leased, in one bucket): the call can be given back, the lease's unspent tokens cannot.
  const holder = limits((second ?? t).db, { leaseMs: 60_000 });
  const leased = "agent:x/limit-1000/user:leaser";
  expect(await holder.port(DEFAULT_PROJECT_ID).take({ key: leased, max: 1_000, windowMs: 60_000 })).toEqual({ allowed: true, count: 1 });
  expect(await counted(leased)).toEqual({ hits: 16, leases: 1 });
  expect(await releaseRateLimit(t.db, { projectId: DEFAULT_PROJECT_ID, key: leased, windowMs: 60_000 })).toBe(true);
  expect(await counted(leased)).toEqual({ hits: 15, leases: 1 });
  expect(await releaseRateLimit(t.db, { projectId: DEFAULT_PROJECT_ID, key: leased, windowMs: 60_000 })).toBe(false);
  expect(await counted(leased)).toEqual({ hits: 15, leases: 1 });
  // Returned whole, the lease leaves nothing behind: the bucket never went below what it took back.
  await holder.settleAll();
  expect(await counted(leased)).toEqual({ hits: 0, leases: 0 });

  // Another project's window of the same key is not the one given back.
  const elsewhere = await addProject(t.db, { slug: "gives-back-elsewhere" });
  expect((await near.port(elsewhere.id).take(request)).allowed).toBe(true);
  expect(await releaseRateLimit(t.db, { projectId: DEFAULT_PROJECT_ID, key, windowMs: 60_000 })).toBe(true);
  const [theirs] = (await t.execute("select sum(hits)::integer as hits from rate_limit_buckets where key = $1 and project_id = $2", [key, elsewhere.id])).rows as { hits: number }[];
  expect(theirs.hits).toBe(1);
  await near.settleAll();
});
