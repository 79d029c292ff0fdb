/**
 * DELETE /api/v1/runs/{id} (issue 12, item 6): an admin deletes a finished run with its events,
 * transcript, approvals and hook ledger rows; the ledger's chain keeps verifying (the rows' places
 * become chain_gaps), and the audit log says who deleted which run and what went. From the wrong
 * side: a run still going (409), operator and viewer (403), no token (401), another origin riding
 * the cookie (403), an unknown id (404), a malformed one (404), a hand-made deletion (refused).
 */
import { linkedRows } from "@/test/chain-rows";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { deleteLedgerDaysBefore } from "@/db/queries/hook-invocations";
import { verifyChain } from "@/db/queries/chain-verification";
import { sealChain } from "@/db/queries/hash-chain";
import { DEFAULT_PROJECT_ID, approvals, hookInvocations, runEvents, runMessages, runs } from "@/db/schema";
import { checkRecordIntegrity } from "@/lib/features/audit/integrity-check";
import { createSession } from "@/db/queries/sessions";
import { hashSecretToken, newSecretToken } from "@/lib/platform/auth/secret-token";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import * as runRoute from "./route";
import { addPerson, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";

let t: TestDatabase;
let admin: string;
let adminCookie: string;
let operator: string;
let viewer: string;
let agentId: string;

async function rows<T = Record<string, unknown>>(text: string, params?: unknown[]) {
  return (await t.execute(text, params)).rows as T[];
}

/** A run with 3 events, 2 messages, an approval, and ledger rows `ledger` (labels, in order). */
async function makeRun(label: string, status: "finished" | "running" = "finished") {
  const [run] = await t.db
    .insert(runs)
    .values({ projectId: DEFAULT_PROJECT_ID, agentId, prompt: label, source: "api", status, outcome: status === "finished" ? "completed" : null, finishedAt: status === "finished" ? new Date() : null, lastSeq: 3 })
    .returning();
  await t.db.insert(runEvents).values([1, 2, 3].map((seq) => ({ runId: run.id, seq, type: "tool.pre", data: { label } })));
  await t.db.insert(runMessages).values([0, 1].map((idx) => ({ runId: run.id, stage: 0, idx, message: { role: "user", content: label } })));
  await t.db.insert(approvals).values({ projectId: DEFAULT_PROJECT_ID, runId: run.id, hookKey: "gate", toolCallId: `${label}-call`, status: "approved" });
  return run.id;
}

async function ledger(runId: string | null, reason: string) {
  await t.db.insert(hookInvocations).values({ runId, event: "tool.pre", hookKey: "guard", matched: true, verdict: "allow", reason });
}

async function counts(runId: string) {
  const [row] = await rows<Record<string, number>>(
    `select (select count(*)::int from runs where id = $1) as runs,
            (select count(*)::int from run_events where run_id = $1) as events,
            (select count(*)::int from run_messages where run_id = $1) as messages,
            (select count(*)::int from approvals where run_id = $1) as approvals,
            (select count(*)::int from hook_invocations where run_id = $1) as ledger`,
    [runId],
  );
  return row;
}

const del = (id: string, init: { token?: string; headers?: Record<string, string> } = {}) =>
  callRoute(runRoute.DELETE, { method: "DELETE", path: `/api/v1/runs/${encodeURIComponent(id)}`, params: { id }, ...init });

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  const adminUser = await addPerson(t.db, { email: "admin@example.com", passwordHash: await hashPassword("long enough"), role: "admin", instanceAdmin: true });
  admin = (await addToken(t.db, { role: "admin", name: "setup", userId: adminUser.id })).token;
  // The admin signed in to the dashboard: a session of theirs.
  adminCookie = newSecretToken("");
  await createSession(t.db, { tokenHash: hashSecretToken(adminCookie), userId: adminUser.id, ttlMs: 3600_000 });
  operator = (await addToken(t.db, { name: "ops", role: "operator" })).token;
  viewer = (await addToken(t.db, { name: "eyes", role: "viewer" })).token;
  agentId = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name: "deletable", model: "scripted", tools: [], maxTurns: 3, timeoutMs: 10_000 } }))!.id;
});
afterAll(async () => {
  await t?.drop();
});

describe("an admin deletes a finished run", () => {
  test("its events, messages, approvals and ledger rows go; others stay; the chain verifies over the gaps; the audit row says what went", async () => {
    const doomed = await makeRun("doomed");
    const other = await makeRun("other");
    // Interleaved ledger rows: the doomed run's rows sit in two stretches of the chain.
    await ledger(doomed, "d1");
    await ledger(doomed, "d2");
    await ledger(other, "o1");
    await ledger(null, "a hook test");
    await ledger(doomed, "d3");
    await ledger(other, "o2");
    await sealChain(t.db, { table: "hook_invocations" });
    const positions = await rows<{ reason: string; chain_seq: number; hash: string }>(`select reason, chain_seq::int as chain_seq, hash from ${linkedRows("hook_invocations")} order by chain_seq`);

    const res = await del(doomed, { token: admin });
    expect(res.status).toBe(204);
    expect(await counts(doomed)).toEqual({ runs: 0, events: 0, messages: 0, approvals: 0, ledger: 0 });
    expect(await counts(other)).toEqual({ runs: 1, events: 3, messages: 2, approvals: 1, ledger: 2 });
    expect((await rows<{ reason: string }>(`select reason from ${linkedRows("hook_invocations")} order by chain_seq`)).map((r) => r.reason)).toEqual(["o1", "a hook test", "o2"]);

    const seq = (reason: string) => positions.find((p) => p.reason === reason)!;
    const gaps = await rows("select run_id, first_seq::int as first_seq, last_seq::int as last_seq, hash from chain_gaps order by first_seq");
    expect(gaps).toEqual([
      { run_id: doomed, first_seq: seq("d1").chain_seq, last_seq: seq("d2").chain_seq, hash: seq("d2").hash },
      { run_id: doomed, first_seq: seq("d3").chain_seq, last_seq: seq("d3").chain_seq, hash: seq("d3").hash },
    ]);

    const [audit] = await rows<{ actor: string; entity_type: string; entity_id: string; before: unknown; after: unknown }>(
      "select actor, entity_type, entity_id, before, after from audit_log where action = 'run.delete'",
    );
    const json = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v);
    // Who (the admin's token), which run, when (the row's created_at, hashed into the chain).
    expect(audit).toMatchObject({ actor: "token:setup", entity_type: "run", entity_id: doomed });
    expect(json(audit.before)).toMatchObject({ agentId, agentName: "deletable", source: "api", outcome: "completed" });
    expect(json(audit.after)).toEqual({ deleted: { events: 3, messages: 2, approvals: 1, ledgerRows: 3, gaps: 2 } });

    const integrity = await checkRecordIntegrity(t.db);
    expect(integrity.ok).toBe(true);
    expect(integrity.ledger).toMatchObject({ rows: 3, removed: { rows: 3, runs: 1 } });
    expect(integrity.ledger.firstBroken).toBeUndefined();
  });

  test("a run whose ledger rows were the newest: the next rows link to its gap", async () => {
    const last = await makeRun("newest");
    await ledger(last, "n1");
    await sealChain(t.db, { table: "hook_invocations" });
    const [n1] = await rows<{ chain_seq: number; hash: string }>(`select chain_seq::int as chain_seq, hash from ${linkedRows("hook_invocations")} where reason = 'n1'`);
    expect((await del(last, { token: admin })).status).toBe(204);
    expect(await verifyChain(t.db, { table: "hook_invocations" })).toMatchObject({ head: { position: n1.chain_seq, hash: n1.hash } });
    await ledger(null, "after the gap");
    await sealChain(t.db, { table: "hook_invocations" });
    const report = await verifyChain(t.db, { table: "hook_invocations" });
    expect(report).toMatchObject({ head: { position: n1.chain_seq + 1 } });
    expect(report.firstBroken).toBeUndefined();
  });

  test("retention after a deletion: the oldest days go around the gaps, verify still holds", async () => {
    const tomorrow = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 + 86_400_000);
    const gone = await deleteLedgerDaysBefore(t.db, { before: tomorrow });
    expect(gone.deleted).toBe(4);
    const report = await checkRecordIntegrity(t.db);
    expect(report.ok).toBe(true);
    expect(report.ledger.rows).toBe(0);
  });

  test("through the dashboard's cookie from the dashboard's own origin too", async () => {
    const run = await makeRun("by cookie");
    const res = await del(run, { headers: { cookie: `hp_session=${adminCookie}`, origin: "http://localhost" } });
    expect(res.status).toBe(204);
    expect(await counts(run)).toMatchObject({ runs: 0, events: 0 });
    expect(await rows("select actor from audit_log where action = 'run.delete' and entity_id = $1", [run])).toEqual([{ actor: "admin@example.com" }]);
  });
});

describe("from the wrong side nothing is deleted", () => {
  test("a run still going: 409, cancel first", async () => {
    const going = await makeRun("going", "running");
    const res = await del(going, { token: admin });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/running: cancel it first/);
    expect(await counts(going)).toEqual({ runs: 1, events: 3, messages: 2, approvals: 1, ledger: 0 });
  });

  test("operator and viewer 403, no token 401, another origin riding the cookie 403", async () => {
    const kept = await makeRun("kept");
    expect((await del(kept, { token: operator })).status).toBe(403);
    expect((await del(kept, { token: viewer })).status).toBe(403);
    expect((await del(kept)).status).toBe(401);
    const foreign = await del(kept, { headers: { cookie: `hp_session=${adminCookie}`, origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe("cross_origin");
    const noOrigin = await del(kept, { headers: { cookie: `hp_session=${adminCookie}` } });
    expect(noOrigin.status).toBe(403);
    expect(await counts(kept)).toEqual({ runs: 1, events: 3, messages: 2, approvals: 1, ledger: 0 });
    expect(await rows("select id from audit_log where action = 'run.delete' and entity_id = $1", [kept])).toEqual([]);
  });

  test("an unknown id 404, a malformed one 404 (and no 500)", async () => {
    for (const id of ["6a0e7c61-8a5e-4c39-9d0c-5b0a1d2f3e4c", "not-a-run", "1 or 1=1", "%00", "x".repeat(5000)]) {
      const res = await del(id, { token: admin });
      expect(res.status, id).toBe(404);
    }
  });

  test("deleting ledger rows or writing a gap by hand is refused by the database", async () => {
    const run = await makeRun("by hand");
    await ledger(run, "h1");
    await sealChain(t.db, { table: "hook_invocations" });
    const [h1] = await rows<{ chain_seq: number; hash: string }>(`select chain_seq::int as chain_seq, hash from ${linkedRows("hook_invocations")} where reason = 'h1'`);
    await expect(t.execute("delete from hook_invocations where reason = 'h1'")).rejects.toThrow(/append-only/);
    // A gap while the run still exists, or with a hash that is not the row's: refused.
    await expect(
      t.execute("insert into chain_gaps (table_name, run_id, first_seq, last_seq, hash) values ('hook_invocations', $1, $2, $2, $3)", [run, h1.chain_seq, h1.hash]),
    ).rejects.toThrow(/chain_gaps is append-only/);
    await t.execute("delete from runs where id = $1", [run]);
    await expect(
      t.execute("insert into chain_gaps (table_name, run_id, first_seq, last_seq, hash) values ('hook_invocations', $1, $2, $2, $3)", [run, h1.chain_seq, "0".repeat(64)]),
    ).rejects.toThrow(/chain_gaps is append-only/);
    // The ledger row outlives a run deleted any other way (as when its agent is deleted).
    expect(await rows("select reason from hook_invocations where reason = 'h1'")).toHaveLength(1);
    // The gaps themselves are append-only.
    await expect(t.execute("update chain_gaps set hash = hash")).rejects.toThrow(/append-only/);
    await expect(t.execute("delete from chain_gaps")).rejects.toThrow(/append-only/);
    await expect(t.execute("truncate chain_gaps")).rejects.toThrow(/append-only/);
    expect((await checkRecordIntegrity(t.db)).ok).toBe(true);
  });
});
