/**
 * The run's one-statement writes (appendRunRecords, setRunStatus, finishRun): what each leaves in
 * the tables and the notices each sends, exactly, on both databases.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { CHANNELS } from "@/db/notify-channels";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { createAgent } from "./agents";
import { getOrCreateApproval, getApproval } from "./approvals";
import { listRunHookInvocations } from "./hook-invocations";
import { appendRunRecords, CheckpointJson, listRunEventsAfter, listRunMessages, type LedgerRowOfBatch } from "./run-events";
import { createRun, finishRun, getRun, setRunStatus } from "./runs";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

let t: TestDatabase;
let agentId: string;
const notices: { channel: string; payload: unknown }[] = [];
const unlisten: (() => Promise<void>)[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  agentId = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name: "records", model: "scripted", tools: [], maxTurns: 3, timeoutMs: 10_000 } }))!.id;
  for (const channel of [CHANNELS.runEvents, CHANNELS.runs, CHANNELS.approvals]) {
    unlisten.push(await t.listen(channel, (payload) => notices.push({ channel, payload: JSON.parse(payload) })));
  }
});
afterAll(async () => {
  for (const stop of unlisten) await stop();
  await t.drop();
});

/** The notices of one run received since `from`, once `count` are in. */
async function noticesOf(runId: string, from: number, count: number) {
  const mine = () => notices.slice(from).filter((n) => JSON.stringify(n.payload).includes(runId) || n.channel === CHANNELS.approvals);
  await expect.poll(() => mine().length, { timeout: 5_000 }).toBeGreaterThanOrEqual(count);
  return mine();
}

/** A new run, once its creation notice is in (so it is not counted as a later write's). */
async function newRun() {
  const before = notices.length;
  const run = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId, prompt: "p", source: "test" });
  await noticesOf(run.id, before, 1);
  return run;
}

test("a step's events, ledger rows, messages, totals and checkpoint go in together, with one notice each for events and totals", async () => {
  const run = await newRun();
  const from = notices.length;
  const ts = new Date("2026-01-02T03:04:05.678Z");
  const last = await appendRunRecords(t.db, {
    runId: run.id,
    events: [
      { type: "model.post", data: { inputTokens: 10, text: "a \u{1F600} b" }, ts },
      { type: "tool.pre", data: { toolName: "list_files", toolInput: { path: "." } }, ts },
    ],
    ledger: [
      {
        runId: run.id, eventSeq: 2, event: "tool.pre", hookKey: "guard", hookVersion: 3, scope: `agent:${agentId}`, matched: true,
        skipReason: null, verdict: "allow", reason: null, mode: "enforce", action: "block", failed: false, timedOut: false,
        ignored: false, approval: { status: "approved", by: "x" }, exitCode: null, stdout: "lone \ud800 surrogate", stderr: null,
        output: null, durationMs: 0.25,
      },
    ],
    messages: [{ stage: 0, idx: 0, message: { role: "user", text: "p" } }],
    totals: { inputTokens: 10, outputTokens: 2, cachedTokens: 1, costUsd: 0.5, toolsUsed: ["list_files"], blocked: true },
    checkpoint: { where: "tools", messageCounts: [1] },
  });
  expect(last).toBe(2);
  const events = await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 10 });
  expect(events).toEqual([
    { seq: 1, type: "model.post", ts, data: { inputTokens: 10, text: "a \u{1F600} b" } },
    { seq: 2, type: "tool.pre", ts, data: { toolName: "list_files", toolInput: { path: "." } } },
  ]);
  const [row] = await listRunHookInvocations(t.db, { runId: run.id });
  expect(row).toMatchObject({
    runId: run.id, eventSeq: 2, event: "tool.pre", hookKey: "guard", hookVersion: 3, matched: true, verdict: "allow",
    mode: "enforce", action: "block", approval: { status: "approved", by: "x" }, stdout: "lone \ufffd surrogate",
    durationMs: 0.25, chainSeq: null, hash: null,
  });
  expect(row.createdAt).toBeInstanceOf(Date);
  expect(await listRunMessages(t.db, { runId: run.id })).toEqual([{ stage: 0, idx: 0, message: { role: "user", text: "p" } }]);
  const stored = (await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: run.id }))!;
  expect(stored).toMatchObject({
    lastSeq: 2, inputTokens: 10, outputTokens: 2, cachedTokens: 1, costUsd: 0.5, toolsUsed: ["list_files"], blocked: true,
    checkpoint: { where: "tools", messageCounts: [1] }, failures: 0,
  });
  expect(await noticesOf(run.id, from, 2)).toEqual([
    { channel: CHANNELS.runEvents, payload: { runId: run.id, seq: 2 } },
    { channel: CHANNELS.runs, payload: { runId: run.id } },
  ]);

  // A tool already listed is not listed twice; a checkpoint alone sends no notice and keeps the totals.
  await appendRunRecords(t.db, { runId: run.id, events: [], totals: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0, toolsUsed: ["list_files", "shell"], blocked: false } });
  await appendRunRecords(t.db, { runId: run.id, events: [], checkpoint: { where: "model" } });
  expect(await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: run.id })).toMatchObject({ lastSeq: 2, toolsUsed: ["list_files", "shell"], blocked: true, checkpoint: { where: "model" }, inputTokens: 10 });
  // A snapshot already taken as JSON is stored as that JSON.
  await appendRunRecords(t.db, { runId: run.id, events: [], checkpoint: new CheckpointJson('{"where":"tools","n":[1,2]}') });
  expect((await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: run.id }))!.checkpoint).toEqual({ where: "tools", n: [1, 2] });
  await expect(appendRunRecords(t.db, { runId: "00000000-0000-4000-8000-000000000000", events: [{ type: "x", data: {} }] })).rejects.toThrow(/does not exist/);
});

test("ledger rows keep each column as given: what all rows share is sent once, what differs stays each row's, a null stays null", async () => {
  const run = await newRun();
  const person = { role: "operator", tier: "interactive" as const, label: "dev@example.com", userId: "u-1" };
  const row = (hookKey: string, extra: Partial<LedgerRowOfBatch>): LedgerRowOfBatch => ({
    projectId: DEFAULT_PROJECT_ID, runId: run.id, eventSeq: null, event: "tool.pre", hookKey, hookVersion: 1, scope: `agent:${agentId}`,
    matched: true, skipReason: null, verdict: "allow", reason: null, mode: "enforce", action: "block", failed: false, timedOut: false,
    ignored: false, approval: null, exitCode: null, stdout: null, stderr: null, output: null, durationMs: 0, actorKey: "user:u-1", actor: person,
    eventIndex: 0, ...extra,
  });
  // One person's three rows (the actor object shared), then a write whose rows name two actors and one with none.
  await appendRunRecords(t.db, {
    runId: run.id,
    events: [{ type: "tool.pre", data: { toolName: "Bash" } }],
    ledger: [row("when-rule", { matched: false, verdict: null, skipReason: "when did not match" }), row("limit", { reason: "1 of 60" }), row("guard", { output: "out", exitCode: 0 })],
  });
  await appendRunRecords(t.db, {
    runId: run.id,
    events: [{ type: "tool.pre", data: { toolName: "Read" } }, { type: "tool.post", data: { toolName: "Read" } }],
    ledger: [
      row("a", { actorKey: "user:u-2", actor: { ...person, label: "other@example.com", userId: "u-2" } }),
      row("b", { actorKey: null, actor: null, eventIndex: 1, approval: { status: "approved" } }),
      row("c", { projectId: null, eventIndex: 1 }),
    ],
  });
  const rows = await listRunHookInvocations(t.db, { runId: run.id });
  const view = (key: string) => {
    const r = rows.find((x) => x.hookKey === key)!;
    return { eventSeq: r.eventSeq, projectId: r.projectId, runId: r.runId, actorKey: r.actorKey, actor: r.actor, matched: r.matched, verdict: r.verdict, skipReason: r.skipReason, reason: r.reason, output: r.output, exitCode: r.exitCode, approval: r.approval };
  };
  const common = { projectId: DEFAULT_PROJECT_ID, runId: run.id, actorKey: "user:u-1", actor: person, matched: true, verdict: "allow", skipReason: null, reason: null, output: null, exitCode: null, approval: null };
  expect(rows.map((r) => r.hookKey)).toEqual(["when-rule", "limit", "guard", "a", "b", "c"]);
  expect(view("when-rule")).toEqual({ ...common, eventSeq: 1, matched: false, verdict: null, skipReason: "when did not match" });
  expect(view("limit")).toEqual({ ...common, eventSeq: 1, reason: "1 of 60" });
  expect(view("guard")).toEqual({ ...common, eventSeq: 1, output: "out", exitCode: 0 });
  expect(view("a")).toEqual({ ...common, eventSeq: 2, actorKey: "user:u-2", actor: { ...person, label: "other@example.com", userId: "u-2" } });
  expect(view("b")).toEqual({ ...common, eventSeq: 3, actorKey: null, actor: null, approval: { status: "approved" } });
  expect(view("c")).toEqual({ ...common, eventSeq: 3, projectId: null });
});

test("concurrent writers of one run get gapless seqs", async () => {
  const run = await newRun();
  await Promise.all(Array.from({ length: 8 }, (_, i) => appendRunRecords(t.db, { runId: run.id, events: [{ type: "a", data: { i } }, { type: "b", data: { i } }] })));
  const events = await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 100 });
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
  expect((await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: run.id }))!.lastSeq).toBe(16);
});

test("inside a transaction the step is written the same way, and rolled back with it", async () => {
  const run = await newRun();
  const step = (tx: typeof t.db) => appendRunRecords(tx, { runId: run.id, events: [{ type: "a", data: { n: 1 } }], checkpoint: { at: 1 } });
  expect(await t.db.transaction((tx) => step(tx as unknown as typeof t.db))).toBe(1);
  await expect(
    t.db.transaction(async (tx) => {
      await step(tx as unknown as typeof t.db);
      throw new Error("rolled back");
    }),
  ).rejects.toThrow("rolled back");
  expect((await listRunEventsAfter(t.db, { runId: run.id, after: 0, limit: 10 })).map((e) => [e.seq, e.data])).toEqual([[1, { n: 1 }]]);
  expect(await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: run.id })).toMatchObject({ lastSeq: 1, checkpoint: { at: 1 } });
});

test("setRunStatus moves a live run and announces it; a finished run stays finished", async () => {
  const run = await newRun();
  const from = notices.length;
  await setRunStatus(t.db, { id: run.id, status: "running" });
  const running = (await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: run.id }))!;
  expect(running.status).toBe("running");
  expect(running.startedAt).toBeInstanceOf(Date);
  expect(await noticesOf(run.id, from, 1)).toEqual([{ channel: CHANNELS.runs, payload: { runId: run.id } }]);
  await finishRun(t.db, { id: run.id, outcome: "completed" });
  await setRunStatus(t.db, { id: run.id, status: "running" });
  expect((await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: run.id }))!.status).toBe("finished");
});

test("finishRun ends the run, abandons its pending approvals (and only those), drops its transcript, and announces each", async () => {
  const run = await newRun();
  const other = await newRun();
  const ask = (runId: string, toolCallId: string) =>
    getOrCreateApproval(t.db, { runId, hookKey: "ask", toolCallId, toolName: "shell", onTimeout: "deny", expiresAt: null });
  const before = notices.length;
  const pending = [(await ask(run.id, "c1")).row, (await ask(run.id, "c2")).row];
  const untouched = (await ask(other.id, "c1")).row;
  await expect.poll(() => notices.length - before, { timeout: 5_000 }).toBe(3);
  await appendRunRecords(t.db, { runId: run.id, events: [], messages: [{ stage: 0, idx: 0, message: { role: "user", text: "p" } }], checkpoint: { at: 1 } });
  const from = notices.length;

  const { abandoned } = await finishRun(t.db, { id: run.id, outcome: "cancelled", reason: "cancelled", response: "r", totals: { inputTokens: 5, outputTokens: 6, cachedTokens: 7, costUsd: 0.25 } });
  expect([...abandoned].sort()).toEqual(pending.map((p) => p.id).sort());
  const finished = (await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: run.id }))!;
  expect(finished).toMatchObject({ status: "finished", outcome: "cancelled", reason: "cancelled", response: "r", checkpoint: null, inputTokens: 5, outputTokens: 6, cachedTokens: 7, costUsd: 0.25 });
  expect(finished.finishedAt).toBeInstanceOf(Date);
  for (const p of pending) {
    expect(await getApproval(t.db, { projectId: DEFAULT_PROJECT_ID, id: p.id })).toMatchObject({ status: "abandoned", decidedVia: "abandoned", reason: "the run ended (cancelled) before anyone decided" });
  }
  expect((await getApproval(t.db, { projectId: DEFAULT_PROJECT_ID, id: untouched.id }))!.status).toBe("pending");
  expect(await listRunMessages(t.db, { runId: run.id })).toEqual([]);
  const got = await noticesOf(run.id, from, 3);
  expect(got[0]).toEqual({ channel: CHANNELS.runs, payload: { runId: run.id } });
  expect(got.slice(1).map((n) => (n.payload as { approvalId: string }).approvalId).sort()).toEqual(pending.map((p) => p.id).sort());

  // Text goes in exactly as given, whatever quotes it holds; a NUL is refused as a parameter is.
  const odd = `it's $v$ $v1$ \\ "quoted" \u{1F600} ' -- ;`;
  const third = await newRun();
  await finishRun(t.db, { id: third.id, outcome: "completed", response: odd });
  expect((await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: third.id }))!.response).toBe(odd);
  await expect(finishRun(t.db, { id: third.id, outcome: "completed", response: "a\u0000b" })).rejects.toThrow();
  expect((await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: third.id }))!.response).toBe(odd);

  // Without totals the run's own are kept; a second finish finds nothing pending.
  await appendRunRecords(t.db, { runId: other.id, events: [], totals: { inputTokens: 3, outputTokens: 0, cachedTokens: 0, costUsd: 0.1, toolsUsed: [], blocked: false } });
  expect((await finishRun(t.db, { id: other.id, outcome: "failed" })).abandoned).toEqual([untouched.id]);
  expect(await getRun(t.db, { projectId: DEFAULT_PROJECT_ID, id: other.id })).toMatchObject({ outcome: "failed", reason: null, response: null, inputTokens: 3, costUsd: 0.1 });
  expect((await finishRun(t.db, { id: other.id, outcome: "failed" })).abandoned).toEqual([]);
});
