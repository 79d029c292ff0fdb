/**
 * A session's run is started by whichever of its first calls gets there first: one INSERT ...
 * ON CONFLICT DO NOTHING against the unique index of open runs (runs_open_session_uq,
 * db/queries/external-runs.ts), where it was a transaction under an advisory lock. Tried from the
 * sides where two runs could come of one session:
 * - many first calls of one session at once, from one process or two (another pool on PostgreSQL,
 *   each with its own group commit), with another person's same session id among them;
 * - a resumed session reopening its finished run while a new call of it races the reopen;
 * - a session ended by Hookplane (cancelled) whose next calls keep to the stopped run, and whose
 *   new start opens a new one.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { openDatabase, type DbHandle } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { createProject } from "@/db/queries/projects";
import { createHook } from "@/db/queries/hooks";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import type { Principal } from "@/lib/platform/auth/roles";
import { cancelRun } from "@/lib/features/runs/run-service";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPerson } from "@/test/people";
import { ingestSessionEvent, type SessionEvent } from "./session-ingest";

let t: TestDatabase;
/** A second web process: its own pool and group commit on PostgreSQL; the same handle on PGlite (one process only). */
let other: DbHandle;
let ada: Principal;
let bob: Principal;
const AGENT = "racer";

const person = (id: string, email: string): Principal => ({
  kind: "user",
  id,
  userId: id,
  email,
  label: email,
  role: "operator",
  projectId: DEFAULT_PROJECT_ID,
  projectSlug: "default",
  instanceAdmin: false,
});

beforeAll(async () => {
  t = await createTestDatabase();
  other = t.databaseUrl ? await openDatabase({ databaseUrl: t.databaseUrl }) : t;
  ada = person((await addPerson(t.db, { email: "ada@example.com", role: "operator" })).id, "ada@example.com");
  bob = person((await addPerson(t.db, { email: "bob@example.com", role: "operator" })).id, "bob@example.com");
  const agent = await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: AGENT }) });
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "no-prod", scope: `agent:${agent!.id}`, event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "prod is off-limits", denyIf: "/srv/prod" } }),
    actor: "test",
  });
});
afterAll(async () => {
  if (other && other !== t) await other.close();
  await t?.drop();
});

const base = (sessionId: string) => ({ agent: AGENT, sessionId, source: "claude-code", title: "race" });
const startEvent = (sessionId: string, extra: Partial<SessionEvent> = {}): SessionEvent => ({ ...base(sessionId), type: "session.start", data: { source: "startup" }, ...extra });
const toolPre = (sessionId: string, command: string, id: string): SessionEvent => ({
  ...base(sessionId),
  type: "tool.pre",
  data: { toolName: "Bash", toolInput: { command }, toolCallId: id },
});
const endEvent = (sessionId: string): SessionEvent => ({ ...base(sessionId), type: "session.end", data: { outcome: "completed" } });

/** Every run of a session id, any actor, oldest first. */
async function runsOf(sessionId: string) {
  const { rows } = await t.execute(
    "select id, actor_key, status, outcome from runs where external_session_id = $1 order by created_at, id",
    [sessionId],
  );
  return rows as { id: string; actor_key: string; status: string; outcome: string | null }[];
}

async function eventsOf(runId: string) {
  return listRunEventsAfter(t.db, { runId, after: 0, limit: 1000 });
}

test("first calls of one session at once, on two processes, with another person's same session id: one run each, every call recorded once", async () => {
  const session = "race-1";
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < 12; i++) {
    const handle = i % 2 === 0 ? t : other;
    const who = i % 3 === 2 ? bob : ada;
    // Each person's calls: some SessionStart, some PreToolUse, one in four asking for prod.
    const event = i % 4 === 0 ? startEvent(session) : toolPre(session, i % 4 === 3 ? "cat /srv/prod/db" : `echo ${i}`, `call-${i}`);
    calls.push(ingestSessionEvent(handle, who, event));
  }
  const results = (await Promise.all(calls)) as { runId: string; seq: number; result?: { verdict: string } }[];

  const runs = await runsOf(session);
  expect(runs.map((r) => [r.actor_key, r.status])).toEqual(
    expect.arrayContaining([
      [`user:${ada.userId}`, "running"],
      [`user:${bob.userId}`, "running"],
    ]),
  );
  expect(runs).toHaveLength(2);
  const runOf = Object.fromEntries(runs.map((r) => [r.actor_key, r.id]));
  for (let i = 0; i < 12; i++) {
    const who = i % 3 === 2 ? bob : ada;
    expect(results[i].runId).toBe(runOf[`user:${who.userId}`]);
    if (i % 4 === 3) expect(results[i].result?.verdict).toBe("block");
  }
  for (const [actor, runId] of Object.entries(runOf)) {
    const mine = [...Array(12).keys()].filter((i) => `user:${(i % 3 === 2 ? bob : ada).userId}` === actor);
    const events = await eventsOf(runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    // Each call's event once, and a denial after each prod call.
    expect(events.filter((e) => e.type === "session.start")).toHaveLength(mine.filter((i) => i % 4 === 0).length);
    expect(events.filter((e) => e.type === "tool.pre").map((e) => e.data.toolCallId).sort()).toEqual(
      mine.filter((i) => i % 4 !== 0).map((i) => `call-${i}`).sort(),
    );
    expect(events.filter((e) => e.type === "loop.tool_denied").map((e) => e.data.toolCallId).sort()).toEqual(
      mine.filter((i) => i % 4 === 3).map((i) => `call-${i}`).sort(),
    );
    // The guard's ledger: one row a tool call, each on its own event, in this run only.
    const ledger = await listRunHookInvocations(t.db, { runId });
    expect(ledger.map((row) => row.eventSeq).sort((a, b) => a! - b!)).toEqual(events.filter((e) => e.type === "tool.pre").map((e) => e.seq));
    expect(ledger.every((row) => row.actorKey === actor)).toBe(true);
  }
});

test("a resumed session reopens its finished run while a new call of it races the reopen: one open run, both calls in it", async () => {
  for (let round = 0; round < 4; round++) {
    const session = `race-resume-${round}`;
    const first = await ingestSessionEvent(t, ada, startEvent(session));
    await ingestSessionEvent(t, ada, endEvent(session));
    expect((await runsOf(session)).map((r) => r.status)).toEqual(["finished"]);

    const [resumed, late] = await Promise.all([
      ingestSessionEvent(round % 2 ? other : t, ada, { ...base(session), type: "session.resume", data: { source: "resume" }, continues: true }),
      ingestSessionEvent(round % 2 ? t : other, ada, toolPre(session, "echo late", `late-${round}`)),
    ]);
    const runs = await runsOf(session);
    const open = runs.filter((r) => r.status !== "finished");
    expect(open).toHaveLength(1);
    expect(resumed.runId).toBe(open[0].id);
    expect(late.runId).toBe(open[0].id);
    // Reopened (the first run) or started anew by the late call, whichever came first: at most two runs.
    expect(runs.length).toBeLessThanOrEqual(2);
    if (runs.length === 1) expect(open[0].id).toBe(first.runId);
    const types = (await eventsOf(open[0].id)).map((e) => e.type);
    expect(types.filter((type) => type === "session.resume")).toHaveLength(1);
    expect(types.filter((type) => type === "tool.pre")).toHaveLength(1);
  }
});

test("a session Hookplane cancelled keeps its stopped run for its next calls, and a new start opens a new run", async () => {
  const session = "race-cancelled";
  const { runId } = await ingestSessionEvent(t, ada, startEvent(session));
  await cancelRun(t.db, { ...ada, role: "admin" }, runId);
  // The first call after the cancel ends the session; the ones after keep to the stopped run.
  expect(await ingestSessionEvent(t, ada, toolPre(session, "ls", "after-cancel-0"))).toMatchObject({ runId, result: { verdict: "block" } });
  const denied = await Promise.all([1, 2, 3].map((i) => ingestSessionEvent(i % 2 ? t : other, ada, toolPre(session, "ls", `after-cancel-${i}`))));
  expect(denied.map((d) => [d.runId, d.result?.verdict])).toEqual([1, 2, 3].map(() => [runId, "block"]));
  expect((await runsOf(session)).map((r) => [r.id, r.status, r.outcome])).toEqual([[runId, "finished", "cancelled"]]);

  const restarted = await Promise.all([ingestSessionEvent(t, ada, startEvent(session)), ingestSessionEvent(other, ada, startEvent(session))]);
  const runs = await runsOf(session);
  expect(runs).toHaveLength(2);
  expect(restarted[0].runId).toBe(runs[1].id);
  expect(restarted[1].runId).toBe(runs[1].id);
  expect(runs[1].status).toBe("running");
  expect((await eventsOf(runs[1].id)).map((e) => e.type)).toEqual(["session.start", "session.start"]);
});

test("a start names its agent as every call does: another project's agent (by name or id) starts nothing, an open run is joined", async () => {
  // The start's INSERT finds its agent itself, in the caller's project (startExternalRunByRef).
  const elsewhere = await createProject(t.db, { slug: "elsewhere", name: "Elsewhere" });
  const theirs = (await createAgent(t.db, { projectId: elsewhere.id, spec: agentSpecSchema.parse({ name: "theirs-only" }) }))!;
  for (const agent of ["theirs-only", theirs.id]) {
    await expect(ingestSessionEvent(t, ada, { ...startEvent(`race-foreign-${agent}`), agent })).rejects.toMatchObject({ status: 404 });
    expect(await runsOf(`race-foreign-${agent}`)).toEqual([]);
  }
  const { rows } = await t.execute("select count(*)::int as n from runs where agent_id = $1", [theirs.id]);
  expect(rows).toEqual([{ n: 0 }]);

  // By id in its own project: the same run as by name; a second start of the open session joins it.
  const [own] = (await t.execute("select id from agents where name = $1", [AGENT])).rows as { id: string }[];
  const byId = await ingestSessionEvent(t, ada, { ...startEvent("race-by-id"), agent: own.id });
  const again = await ingestSessionEvent(other, ada, startEvent("race-by-id"));
  expect(again.runId).toBe(byId.runId);
  expect((await runsOf("race-by-id")).map((r) => [r.id, r.status])).toEqual([[byId.runId, "running"]]);
  expect((await eventsOf(byId.runId)).map((e) => e.type)).toEqual(["session.start", "session.start"]);
});
