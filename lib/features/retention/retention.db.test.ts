/**
 * Retention (issue 12, item 6) on the database itself: exactly what is older than each window goes
 * (rows just inside and just outside, an agent's own window against the default, keep-forever),
 * whole partitions are dropped where every row in them expired, the audit log and the ledger still
 * verify after it, and the pass leaves one audit row. PGlite by default, PostgreSQL with
 * DATABASE_URL: the schema is the same (both are PostgreSQL, both partition).
 */
import { sql } from "drizzle-orm";
import { linkedRows } from "@/test/chain-rows";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { queryRows as rowsOf } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { verifyChain } from "@/db/queries/chain-verification";
import { sealChain } from "@/db/queries/hash-chain";
import { listPartitions } from "@/db/queries/partitions";
import { setSetting } from "@/db/queries/settings";
import { agents, auditLog, DEFAULT_PROJECT_ID, hookInvocations, runEvents, runMessages, runs, approvals } from "@/db/schema";
import { checkRecordIntegrity } from "@/lib/features/audit/integrity-check";
import { applyRetention, ensureRetentionPartitions } from "@/lib/features/retention/retention-pass";
import { RETENTION_SETTING_KEY, type RetentionSettings } from "@/lib/features/retention/retention-settings";
import { createTestDatabase, type TestDatabase } from "@/test/database";

const DAY = 86_400_000;
const midnight = (base: Date, offsetDays = 0) => new Date(Math.floor(base.getTime() / DAY) * DAY + offsetDays * DAY);
const at = (ms: number) => new Date(ms);

async function rows<T = Record<string, unknown>>(t: TestDatabase, text: string, params?: unknown[]) {
  return (await t.execute(text, params)).rows as T[];
}

async function agent(t: TestDatabase, name: string, retentionDays?: number) {
  const row = await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name, model: "scripted", tools: [], maxTurns: 3, timeoutMs: 10_000, retentionDays } });
  return row!.id;
}

/** A run with three events (at its start, its middle and its finish), a message and an approval. */
async function run(t: TestDatabase, agentId: string, label: string, times: { created: Date; finished?: Date }) {
  const finished = times.finished;
  const [row] = await t.db
    .insert(runs)
    .values({
      projectId: DEFAULT_PROJECT_ID,
      agentId,
      prompt: label,
      source: "api",
      status: finished ? "finished" : "running",
      outcome: finished ? "completed" : null,
      createdAt: times.created,
      finishedAt: finished ?? null,
      lastSeq: 3,
    })
    .returning();
  const end = finished ?? times.created;
  const middle = at((times.created.getTime() + end.getTime()) / 2);
  await t.db.insert(runEvents).values([
    { runId: row.id, seq: 1, type: "session.start", ts: times.created, data: { label } },
    { runId: row.id, seq: 2, type: "tool.pre", ts: middle, data: { label } },
    { runId: row.id, seq: 3, type: "session.end", ts: end, data: { label } },
  ]);
  await t.db.insert(runMessages).values({ runId: row.id, stage: 0, idx: 0, message: { role: "user", content: label } });
  await t.db.insert(approvals).values({ projectId: DEFAULT_PROJECT_ID, runId: row.id, hookKey: "gate", toolCallId: `${label}-call`, status: "approved", requestedAt: times.created });
  return row.id;
}

async function remaining(t: TestDatabase) {
  const labels = async (text: string) => (await rows<{ label: string }>(t, text)).map((r) => r.label).sort();
  return {
    runs: await labels("select prompt as label from runs"),
    events: await labels("select distinct data->>'label' as label from run_events"),
    messages: await labels("select distinct message->>'content' as label from run_messages"),
    approvals: await labels("select distinct tool_call_id as label from approvals"),
  };
}

async function setRetention(t: TestDatabase, settings: RetentionSettings) {
  await setSetting(t.db, { key: RETENTION_SETTING_KEY, value: settings });
}

describe("what goes: exactly what is older than each window", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    await t?.drop();
  });

  test("runs by their agent's window or the default, keep-forever, the ledger and the audit log by theirs; chains verify; one audit row", async () => {
    const now = at(midnight(new Date()).getTime() + 13 * 3_600_000 + 17_000);
    const today = midnight(now);
    // The audit log first: the chain is in the order rows were written, and only its oldest go.
    const auditCutoff = today.getTime() - 20 * DAY;
    for (const [i, ms] of [auditCutoff - DAY, auditCutoff - 1, auditCutoff, auditCutoff + 1].entries()) {
      await t.db.insert(auditLog).values({ actor: "ops", action: "hook.update", entityType: "hook", entityId: `audit ${i}`, createdAt: at(ms) });
    }
    await setRetention(t, { runDays: 10, ledgerDays: 5, auditDays: 20 });
    const byDefault = await agent(t, "by-default");
    const short = await agent(t, "short", 3);
    const forever = await agent(t, "forever", 0);
    const defaultCutoff = today.getTime() - 10 * DAY;
    const shortCutoff = today.getTime() - 3 * DAY;

    await run(t, byDefault, "default expired", { created: at(defaultCutoff - 2 * DAY), finished: at(defaultCutoff - 1) });
    await run(t, byDefault, "default at the cutoff", { created: at(defaultCutoff - 2 * DAY), finished: at(defaultCutoff) });
    await run(t, byDefault, "default still going", { created: at(defaultCutoff - 40 * DAY) });
    await run(t, short, "short expired", { created: at(shortCutoff - DAY), finished: at(shortCutoff - 1) });
    await run(t, short, "short inside", { created: at(shortCutoff - DAY), finished: at(shortCutoff + 1) });
    await run(t, forever, "forever", { created: at(today.getTime() - 900 * DAY), finished: at(today.getTime() - 899 * DAY) });

    // The ledger: rows appended in time order (sealed in that order), around its cutoff.
    const ledgerCutoff = today.getTime() - 5 * DAY;
    const ledgerTimes = [ledgerCutoff - 3 * DAY, ledgerCutoff - 1, ledgerCutoff, ledgerCutoff + DAY];
    for (const [i, ms] of ledgerTimes.entries()) {
      await t.db.insert(hookInvocations).values({ event: "tool.pre", hookKey: "guard", matched: true, reason: `ledger ${i}`, createdAt: at(ms) });
    }
    await sealChain(t.db, { table: "hook_invocations" });
    await sealChain(t.db, { table: "audit_log" });
    const auditBefore = (await rows<{ entity_id: string }>(t, `select entity_id from ${linkedRows("audit_log")} order by chain_seq`)).map((r) => r.entity_id);

    const report = await applyRetention(t.db, { now });

    expect(await remaining(t)).toEqual({
      runs: ["default at the cutoff", "default still going", "forever", "short inside"],
      events: ["default at the cutoff", "default still going", "forever", "short inside"],
      messages: ["default at the cutoff", "default still going", "forever", "short inside"],
      approvals: ["default at the cutoff-call", "default still going-call", "forever-call", "short inside-call"],
    });
    expect((await rows<{ reason: string }>(t, `select reason from ${linkedRows("hook_invocations")} order by chain_seq`)).map((r) => r.reason)).toEqual(["ledger 2", "ledger 3"]);
    const auditLeft = (await rows<{ entity_id: string | null; action: string }>(t, "select entity_id, action from audit_log order by id"));
    expect(auditLeft.filter((r) => r.action === "hook.update").map((r) => r.entity_id)).toEqual(["audit 2", "audit 3"]);
    // Everything the setup wrote today stays too (the agents' audit rows).
    expect(auditLeft.length).toBe(auditBefore.length - 2 + 1);

    expect(report).toEqual({
      at: now.toISOString(),
      cutoffs: { runs: at(defaultCutoff).toISOString(), ledger: at(ledgerCutoff).toISOString(), audit: at(auditCutoff).toISOString() },
      runs: { deleted: 2, events: 6, partitionsDropped: [] },
      ledger: { deleted: 2, partitionsDropped: [] },
      audit: { deleted: 2 },
    });
    // The deletion is audited: who (retention), when, what.
    const [applied] = await rows<{ actor: string; after: unknown }>(t, "select actor, after from audit_log where action = 'retention.apply'");
    expect(applied.actor).toBe("retention");
    expect(typeof applied.after === "string" ? JSON.parse(applied.after) : applied.after).toEqual(report);

    const integrity = await checkRecordIntegrity(t.db);
    expect(integrity.ok).toBe(true);
    expect(integrity.ledger).toMatchObject({ rows: 2, unsealed: 0, anchor: { position: 2, before: at(ledgerCutoff).toISOString() } });
    expect(integrity.audit.anchor).toMatchObject({ position: 2, before: at(auditCutoff).toISOString() });

    // A second pass finds nothing more and writes no second row.
    const again = await applyRetention(t.db, { now });
    expect(again.runs).toEqual({ deleted: 0, events: 0, partitionsDropped: [] });
    expect(again.ledger.deleted + again.audit.deleted).toBe(0);
    expect(await rows(t, "select id from audit_log where action = 'retention.apply'")).toHaveLength(1);

    // The next day both windows move by a day: the two runs just inside them are now past them.
    const tomorrow = await applyRetention(t.db, { now: at(now.getTime() + DAY) });
    expect(tomorrow.runs).toMatchObject({ deleted: 2, events: 6 });
    expect((await remaining(t)).runs).toEqual(["default still going", "forever"]);
  });

  test("keep forever by default: only an agent's own window applies; 0 everywhere deletes nothing", async () => {
    await setRetention(t, { runDays: 0, ledgerDays: 0, auditDays: 0 });
    const [short] = await rows<{ id: string }>(t, "select id from agents where name = 'short'");
    await run(t, short.id, "short again", { created: at(Date.now() - 2 * DAY), finished: at(Date.now() - DAY) });
    const far = at(Date.now() + 10_000 * DAY);
    const report = await applyRetention(t.db, { now: far });
    expect(report).toMatchObject({ cutoffs: {}, runs: { deleted: 1, events: 3, partitionsDropped: [] }, ledger: { deleted: 0 }, audit: { deleted: 0 } });
    expect((await remaining(t)).runs).toEqual(["default still going", "forever"]);
    await t.db.update(agents).set({ retentionDays: 0 }).where(sql`name = 'short'`);
    await run(t, short.id, "short kept", { created: at(Date.now() - 2 * DAY), finished: at(Date.now() - DAY) });
    const none = await applyRetention(t.db, { now: far });
    expect(none.runs).toEqual({ deleted: 0, events: 0, partitionsDropped: [] });
    expect((await remaining(t)).runs).toEqual(["default still going", "forever", "short kept"]);
  });
});

describe("an agent that keeps forever", () => {
  let t: TestDatabase;
  const statements: string[] = [];
  beforeAll(async () => {
    t = await createTestDatabase({ onStatement: (text) => statements.push(text) });
  });
  afterAll(async () => {
    await t?.drop();
  });

  test("does not stop a day of another agent's expired runs from going: the day is rewritten with the kept agent's events only", async () => {
    await setRetention(t, { runDays: 0, ledgerDays: 0, auditDays: 0 });
    const archivist = await agent(t, "archivist", 0);
    const worker = await agent(t, "worker", 7);
    const start = midnight(new Date(), 2);
    await ensureRetentionPartitions(t.db, { now: at(start.getTime() + 40 * DAY) });
    const day = (n: number, hours = 0) => at(start.getTime() + n * DAY + hours * 3_600_000);
    // While anything keeps forever, partitions are a month each: the one holding day 1.
    const holding = (await listPartitions(t.db, { table: "run_events" })).find((p) => p.lower && p.upper && p.lower <= day(1) && day(1) < p.upper)!;
    await run(t, worker, "worker day 1", { created: day(1, 1), finished: day(1, 2) });
    await run(t, worker, "worker day 1 again", { created: day(1, 5), finished: day(1, 6) });
    await run(t, worker, "worker day 1 third", { created: day(1, 7), finished: day(1, 8) });
    await run(t, worker, "worker day 1 fourth", { created: day(1, 9), finished: day(1, 10) });
    const kept = await run(t, archivist, "archivist day 1", { created: day(1, 3), finished: day(1, 4) });
    const keptBefore = await rows(t, "select * from run_events where run_id = $1 order by seq", [kept]);

    // Once the month has passed (the partition must end before the worker's window cutoff).
    const report = await applyRetention(t.db, { now: at(holding.upper!.getTime() + 8 * DAY) });

    // Before, a window that keeps forever kept every partition, and the worker's 12 events went one
    // row at a time; now its partition is rewritten in place with the archivist's 3 events.
    expect(report.runs.partitionsDropped).toContain(holding.name);
    expect(report.runs).toMatchObject({ deleted: 4, events: 12 });
    expect((await listPartitions(t.db, { table: "run_events" })).find((p) => p.name === holding.name)).toEqual(holding);
    expect(await rows(t, "select * from run_events where run_id = $1 order by seq", [kept])).toEqual(keptBefore);
    expect(await remaining(t)).toMatchObject({ runs: ["archivist day 1"], events: ["archivist day 1"] });

    // The next pass: no expired run is left there, so the partition's rows are not even counted
    // (statements are seen on PostgreSQL only, where each goes to the server).
    statements.length = 0;
    const again = await applyRetention(t.db, { now: at(holding.upper!.getTime() + 9 * DAY) });
    expect(again.runs).toMatchObject({ deleted: 0, events: 0, partitionsDropped: [] });
    if (t.databaseUrl) {
      expect(statements.some((text) => text.includes("from runs r join agents a"))).toBe(true);
      expect(statements.filter((text) => text.includes(`"${holding.name}"`) && text.includes("count("))).toEqual([]);
    }
    expect(await rows(t, "select * from run_events where run_id = $1 order by seq", [kept])).toEqual(keptBefore);
  });
});

describe("whole partitions", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    await t?.drop();
  });

  test("days whose runs all expired are dropped (events and ledger), a day holding a kept run is rewritten with its events only; verify holds", async () => {
    await setRetention(t, { runDays: 7, ledgerDays: 7, auditDays: 0 });
    const a = await agent(t, "worker");
    // Time moves: partitions are made for the coming 40 days, rows are written into them, and
    // retention runs 20 days later than that.
    const start = midnight(new Date(), 2);
    const later = at(start.getTime() + 40 * DAY);
    const made = await ensureRetentionPartitions(t.db, { now: later });
    expect(made.filter((n) => n.startsWith("run_events_p")).length).toBeGreaterThanOrEqual(40);
    const day = (n: number, hours = 0) => at(start.getTime() + n * DAY + hours * 3_600_000);
    const partitionOf = (n: number) => `run_events_p${day(n).toISOString().slice(0, 10).replaceAll("-", "")}`;

    await run(t, a, "day 0", { created: day(0, 1), finished: day(0, 2) });
    await run(t, a, "day 0 again", { created: day(0, 5), finished: day(0, 6) });
    await run(t, a, "days 1 to 2", { created: day(1, 23), finished: day(2, 1) });
    await run(t, a, "day 3 expired", { created: day(3, 1), finished: day(3, 2) });
    // Finished much later: kept, so the partition of day 3 cannot go whole; one of its four events
    // survives, so it is rewritten with that one (db/queries/partition-rewrite.ts).
    const keptRun = await run(t, a, "day 3 kept", { created: day(3, 4), finished: day(30) });
    for (const n of [0, 0, 1, 2, 3, 4]) {
      await t.db.insert(hookInvocations).values({ event: "tool.pre", hookKey: "guard", matched: true, reason: `ledger day ${n}`, createdAt: day(n, 3) });
    }
    await sealChain(t.db, { table: "hook_invocations" });
    const [fourth] = await rows<{ hash: string }>(t, `select hash from ${linkedRows("hook_invocations")} where reason = 'ledger day 2'`);

    // 7 days kept: everything before day 5 is past the window when retention runs on day 12.
    const report = await applyRetention(t.db, { now: day(12, 9) });

    // Tomorrow's and days 0 to 2 (all their runs expired) and day 4 (empty) go whole; day 3 holds
    // an event of a run still kept, so it is rewritten in place (same name) with that event only.
    expect(report.runs.partitionsDropped).toEqual(["run_events_initial", ...[-1, 0, 1, 2, 3, 4].map(partitionOf)]);
    expect(report.runs).toMatchObject({ deleted: 4, events: 12 });
    const eventParts = (await listPartitions(t.db, { table: "run_events" })).map((p) => p.name);
    for (const n of [0, 1, 2, 4]) expect(eventParts).not.toContain(partitionOf(n));
    expect(eventParts).toContain(partitionOf(3));
    const dayThree = await rows<{ label: string; seq: number }>(t, `select data->>'label' as label, seq from only ${partitionOf(3)} order by seq`);
    expect(dayThree).toEqual([{ label: "day 3 kept", seq: 1 }]);
    const keptEvents = await rows<{ seq: number }>(t, "select seq from run_events where run_id = $1 order by seq", [keptRun]);
    expect(keptEvents.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await remaining(t)).runs).toEqual(["day 3 kept"]);
    expect((await remaining(t)).events).toEqual(["day 3 kept"]);

    // The ledger: the first partition (empty) and days 0 to 4 dropped whole, each a prefix of the chain.
    expect(report.ledger).toEqual({
      deleted: 6,
      partitionsDropped: ["hook_invocations_initial", ...[-1, 0, 1, 2, 3, 4].map((n) => partitionOf(n).replace("run_events", "hook_invocations"))],
    });
    const anchors = await rows<{ chain_seq: number; deleted_rows: number; hash: string }>(t, "select chain_seq::int as chain_seq, deleted_rows, hash from chain_anchors where table_name = 'hook_invocations' order by chain_seq");
    expect(anchors.map((x) => [x.chain_seq, x.deleted_rows])).toEqual([[2, 2], [3, 1], [4, 1], [5, 1], [6, 1]]);
    expect(anchors[2].hash).toBe(fourth.hash);
    expect(await rows(t, "select id from hook_invocations")).toEqual([]);
    const integrity = await checkRecordIntegrity(t.db);
    expect(integrity.ok).toBe(true);
    expect(integrity.ledger).toMatchObject({ rows: 0, head: { position: 6 }, anchor: { position: 6 } });
    // New rows link to the last anchor.
    await t.db.insert(hookInvocations).values({ event: "tool.pre", hookKey: "guard", matched: true, reason: "after the drop" });
    await sealChain(t.db, { table: "hook_invocations" });
    const after = await verifyChain(t.db, { table: "hook_invocations" });
    expect(after).toMatchObject({ rows: 1, head: { position: 7 } });
    expect(after.firstBroken).toBeUndefined();
  });

  test("a ledger partition that is not the chain's oldest is kept and its days go row by row", async () => {
    const fresh = await createTestDatabase();
    try {
      await ledgerPartitionNotAPrefix(fresh);
    } finally {
      await fresh.drop();
    }
  });

  async function ledgerPartitionNotAPrefix(t: TestDatabase) {
    await setRetention(t, { runDays: 0, ledgerDays: 3, auditDays: 0 });
    const start = midnight(new Date(), 3);
    const day = (n: number, hours = 0) => at(start.getTime() + n * DAY + hours * 3_600_000);
    const partitionOf = (n: number) => `hook_invocations_p${day(n).toISOString().slice(0, 10).replaceAll("-", "")}`;
    await ensureRetentionPartitions(t.db, { now: day(5) });
    // A row of day 0 sealed after one of day 1 (its transaction committed late).
    await t.db.insert(hookInvocations).values({ event: "tool.pre", hookKey: "guard", matched: true, reason: "day 1", createdAt: day(1, 1) });
    await sealChain(t.db, { table: "hook_invocations" });
    await t.db.insert(hookInvocations).values({ event: "tool.pre", hookKey: "guard", matched: true, reason: "day 0 late", createdAt: day(0, 23) });
    await t.db.insert(hookInvocations).values({ event: "tool.pre", hookKey: "guard", matched: true, reason: "day 5", createdAt: day(5, 1) });
    await sealChain(t.db, { table: "hook_invocations" });
    const report = await applyRetention(t.db, { now: day(5, 2) });
    // Day 0's partition holds position 2 while day 1's holds 1: neither is the chain's prefix, so
    // neither is dropped whole (the empty ones before them are); the rows before day 2 go row by
    // row, as one prefix (1, 2).
    expect(report.ledger.deleted).toBe(2);
    expect(report.ledger.partitionsDropped).toContain("hook_invocations_initial");
    expect(report.ledger.partitionsDropped).not.toContain(partitionOf(0));
    expect(report.ledger.partitionsDropped).not.toContain(partitionOf(1));
    expect((await rows<{ reason: string }>(t, `select reason from ${linkedRows("hook_invocations")} order by chain_seq`)).map((r) => r.reason)).toEqual(["day 5"]);
    expect((await checkRecordIntegrity(t.db)).ok).toBe(true);
    // Emptied, they are dropped by the next pass.
    const next = await applyRetention(t.db, { now: day(5, 3) });
    expect(next.ledger).toEqual({ deleted: 0, partitionsDropped: [partitionOf(0), partitionOf(1)] });
    expect((await checkRecordIntegrity(t.db)).ok).toBe(true);
  }

  test("a partition refuses DELETE and TRUNCATE addressed to it; only the parent's guard decides", async () => {
    await t.db.insert(hookInvocations).values({ event: "tool.pre", hookKey: "guard", matched: true, reason: "guarded" });
    await sealChain(t.db, { table: "hook_invocations" });
    const [where] = await rows<{ part: string }>(t, "select tableoid::regclass::text as part from hook_invocations where reason = 'guarded'");
    await expect(t.execute(`delete from ${where.part}`)).rejects.toThrow(/append-only: DELETE refused/);
    await expect(t.execute(`truncate ${where.part}`)).rejects.toThrow(/append-only: TRUNCATE refused/);
    await expect(t.execute("delete from hook_invocations_default")).rejects.toThrow(/append-only/);
    await expect(t.execute("delete from hook_invocations where reason = 'guarded'")).rejects.toThrow(/append-only: DELETE refused/);
  });
});

describe("partitions made ahead", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => {
    await t?.drop();
  });

  test("a month a partition while anything is kept forever, a day each once every window is finite; again is a no-op", async () => {
    const now = new Date();
    const monthly = await ensureRetentionPartitions(t.db, { now });
    const parts = await listPartitions(t.db, { table: "run_events" });
    const initial = parts.find((p) => p.name === "run_events_initial")!;
    expect(initial.upper).toEqual(midnight(now, 1));
    // From tomorrow to the end of its month, then whole months, past three days ahead.
    const next = parts.find((p) => p.lower?.getTime() === initial.upper!.getTime())!;
    expect(next.upper!.getUTCDate()).toBe(1);
    expect(monthly.length).toBeGreaterThanOrEqual(1);
    expect(await ensureRetentionPartitions(t.db, { now })).toEqual([]);

    await setRetention(t, { runDays: 30, ledgerDays: 30, auditDays: 0 });
    const later = at(now.getTime() + 70 * DAY);
    const daily = await ensureRetentionPartitions(t.db, { now: later });
    const after = (await listPartitions(t.db, { table: "hook_invocations" })).filter((p) => !p.isDefault);
    const last = after.at(-1)!;
    expect(last.upper!.getTime() - last.lower!.getTime()).toBe(DAY);
    expect(last.upper!.getTime()).toBeGreaterThan(later.getTime() + 2 * DAY);
    expect(daily.length).toBeGreaterThan(0);
    // Contiguous: each partition starts where the one before ended.
    for (let i = 1; i < after.length; i++) expect(after[i].lower).toEqual(after[i - 1].upper);
    // An agent keeping forever makes new run_events partitions monthly again.
    await agent(t, "archivist", 0);
    await ensureRetentionPartitions(t.db, { now: at(later.getTime() + 60 * DAY) });
    const events = (await listPartitions(t.db, { table: "run_events" })).filter((p) => !p.isDefault);
    const newest = events.at(-1)!;
    expect(newest.lower!.getUTCDate()).toBe(1);
  });

  test("a period the DEFAULT partition already holds rows of is left to it; inserts never fail", async () => {
    const parts = (await listPartitions(t.db, { table: "run_events" })).filter((p) => !p.isDefault);
    const end = parts.at(-1)!.upper!;
    const a = await agent(t, "stray");
    const [r] = await t.db.insert(runs).values({ projectId: DEFAULT_PROJECT_ID, agentId: a, prompt: "stray", source: "api" }).returning();
    // Far past every partition: the DEFAULT one takes it.
    await t.db.insert(runEvents).values({ runId: r.id, seq: 1, type: "session.start", ts: at(end.getTime() + 10 * DAY) });
    const [where] = await rows<{ part: string }>(t, "select tableoid::regclass::text as part from run_events where run_id = $1", [r.id]);
    expect(where.part).toBe("run_events_default");
    await ensureRetentionPartitions(t.db, { now: at(end.getTime() + 40 * DAY) });
    const [still] = await rows<{ part: string }>(t, "select tableoid::regclass::text as part from run_events where run_id = $1", [r.id]);
    expect(still.part).toBe("run_events_default");
    // Deleting the run deletes its event wherever it is (the trigger that replaced the foreign key).
    await t.db.delete(runs).where(sql`id = ${r.id}`);
    expect(await rowsOf(t.db, sql`select 1 from run_events where run_id = ${r.id}`)).toEqual([]);
    // So does deleting its agent (runs go by foreign key, their events by the trigger).
    const [other] = await t.db.insert(runs).values({ projectId: DEFAULT_PROJECT_ID, agentId: a, prompt: "of a deleted agent", source: "api" }).returning();
    await t.db.insert(runEvents).values({ runId: other.id, seq: 1, type: "session.start" });
    await t.db.delete(agents).where(sql`id = ${a}`);
    expect(await rowsOf(t.db, sql`select 1 from run_events where run_id = ${other.id}`)).toEqual([]);
  });
});
