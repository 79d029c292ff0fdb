/**
 * Hookplane behind a real PgBouncer in transaction mode (issue 26: "behind PgBouncer in transaction
 * mode with prepare=false"): the production server, told so (HOOKPLANE_DB_POOLER=transaction, and
 * DATABASE_DIRECT_URL for what needs a session of its own), starts, takes concurrent bridged
 * sessions with no 5xx and records each once, streams runs to a WebSocket, wakes a held hook call
 * the moment its approval is decided (LISTEN reaches it), and gives the migrations' lock back; its
 * group commit PREPAREs in each group's own message. From the wrong side: the same URL without the
 * setting stops the start with what to set (PgBouncer refuses what is sent when connecting: every
 * query failed with pg's words alone, and the migrations' session lock went through the pooler);
 * the setting without a direct URL, or with one that goes through the pooler too, stops it as well.
 * PostgreSQL only; needs `pgbouncer` (.ci/run installs it).
 */
import pg from "pg";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase } from "@/test/database";
import { pgbouncerBinary, startPgBouncer, type PgBouncer } from "@/test/pgbouncer";
import { startRealServer, type RealServer } from "@/test/real-server";
import { executeStatement, openDatabase } from "./client";
import { groupCommitOf } from "./postgres-group-commit";

const serverUrl = process.env.DATABASE_URL;
const binary = pgbouncerBinary();
if (serverUrl && !binary) console.warn("transaction-pooler.db.test.ts: pgbouncer is not installed; skipped (apt-get install -y pgbouncer)");

const SESSIONS = 20;
const CALLS = 5;

describe.skipIf(!serverUrl || !binary)("behind PgBouncer in transaction mode", () => {
  let bouncer: PgBouncer;
  let server: RealServer | undefined;

  beforeAll(async () => {
    bouncer = await startPgBouncer(serverUrl!);
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    await bouncer?.stop();
  });

  test("the group commit PREPAREs in each group's own message: one query, every caller answered once, a failed group leaves nothing in the way", async () => {
    const t = await createTestDatabase();
    const sent: string[] = [];
    const handle = await openDatabase({ databaseUrl: bouncer.urlOf(t.databaseUrl!), onStatement: (text) => sent.push(text), pooler: { transaction: true, directUrl: t.databaseUrl } });
    try {
      await t.execute("create table pooled_probe (n integer primary key, label text not null)");
      const group = groupCommitOf((handle.db as unknown as { $client: unknown }).$client)!;
      expect(group, "a group commit behind the pooler").toBeDefined();
      const insert = (n: number, label: string) => executeStatement<{ n: number }>(handle.db, "insert into pooled_probe (n, label) values ($1, $2) returning n", [n, label]);
      const rows = await Promise.all(Array.from({ length: 30 }, (_, i) => insert(i, `a'$v$b ${i}`)));
      expect(rows.map((r) => r[0].n)).toEqual(Array.from({ length: 30 }, (_, i) => i));
      expect(group.groups).toBeGreaterThan(0);
      const messages = sent.filter((text) => text.startsWith("prepare hp_message_"));
      expect(messages.length).toBeGreaterThan(0);
      expect(messages.length).toBeLessThan(30);
      for (const message of messages) expect(message).toMatch(/^prepare (hp_message_[0-9a-f]{8}_\d+) as [^]*;\nexecute \1\([^]*;\ndeallocate \1$/);
      // A duplicate rolls its group back: that caller alone gets the error, the others land once,
      // and the PREPAREs the failed message left on a server connection are in no later group's way.
      const settled = await Promise.allSettled([insert(100, "x"), insert(101, "y"), insert(5, "duplicate"), insert(102, "z")]);
      expect(settled.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
      expect(String((settled[2] as PromiseRejectedResult).reason)).toMatch(/duplicate key/);
      for (let round = 0; round < 5; round++) await Promise.all(Array.from({ length: 10 }, (_, i) => insert(200 + round * 10 + i, "after")));
      const stored = (await t.execute("select count(*)::int as n, count(distinct n)::int as distinct_n from pooled_probe")).rows[0];
      expect(stored).toEqual({ n: 30 + 3 + 50, distinct_n: 30 + 3 + 50 });
    } finally {
      await handle.close();
      await t.drop();
    }
  }, 60_000);

  /** What a server that should not start says: the error startRealServer gives, with its output ("" if it started). */
  const startFailure = (databaseEnv: (direct: string) => Record<string, string>) =>
    startRealServer({}, { databaseEnv, startWithinMs: 15_000 }).then(
      async (started) => {
        await started.stop();
        return "";
      },
      (error: Error) => error.message,
    );

  const pooled = (direct: string) => ({ DATABASE_URL: bouncer.urlOf(direct), HOOKPLANE_DB_POOLER: "transaction", DATABASE_DIRECT_URL: direct });

  test("a server not told of the pooler says what to set", async () => {
    const failed = await startFailure((direct) => ({ DATABASE_URL: bouncer.urlOf(direct) }));
    // Refused before the migrations, whose lock would have gone through the pooler.
    expect(failed).toMatch(/unsupported startup parameter: statement_timeout/);
    expect(failed).toMatch(/set HOOKPLANE_DB_POOLER=transaction, and DATABASE_DIRECT_URL/);
  }, 60_000);

  test("a direct URL that goes through the pooler too stops the start, saying so", async () => {
    const failed = await startFailure((direct) => ({ DATABASE_URL: bouncer.urlOf(direct), HOOKPLANE_DB_POOLER: "transaction", DATABASE_DIRECT_URL: bouncer.urlOf(direct) }));
    expect(failed).toMatch(/DATABASE_DIRECT_URL goes through the pooler too: it must reach PostgreSQL itself/);
  }, 60_000);

  test("the pooler setting without a direct URL is refused at start", async () => {
    const failed = await startFailure((direct) => ({ DATABASE_URL: bouncer.urlOf(direct), HOOKPLANE_DB_POOLER: "transaction" }));
    expect(failed).toMatch(/DATABASE_DIRECT_URL: needed with HOOKPLANE_DB_POOLER=transaction/);
  }, 60_000);

  test("concurrent bridged sessions, the live stream and a held approval: no 5xx, woken at once, the record exact", async () => {
    server = await startRealServer({}, { databaseEnv: pooled });
    const { base } = server;
    const call = async (method: string, url: string, token: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const setup = await call("POST", "/api/v1/setup", "", { email: "lead@example.com", password: "correct horse battery" });
    expect(setup.status).toBe(201);
    const admin: string = setup.body.token;
    const operator: string = (await call("POST", "/api/v1/tokens", admin, { name: "bridge", role: "operator" })).body.token;
    expect((await call("POST", "/api/v1/agents", admin, { name: "dev", model: "scripted", tools: [] })).status).toBe(201);
    const guard = { scope: "agent:dev", id: "no-prod", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "prod is off-limits", denyIf: "/srv/prod" } };
    expect((await call("POST", "/api/v1/hooks", admin, guard)).status).toBe(201);
    const ask = { scope: "agent:dev", id: "ask-deploys", event: "tool.pre", matcher: "Deploy", action: { type: "approve", timeoutMs: 120_000, onTimeout: "deny" } };
    expect((await call("POST", "/api/v1/hooks", admin, ask)).status).toBe(201);

    // A subscriber of the runs topic: every session's run reaches it (the stream hub LISTENs).
    const seen = new Set<string>();
    const socket = await new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`${base.replace("http", "ws")}/api/ws?token=${admin}`);
      ws.on("message", (raw) => {
        const message = JSON.parse(raw.toString());
        if (message.type === "hello") ws.send(JSON.stringify({ type: "subscribe", topic: "runs" }));
        if (message.type === "subscribed") resolve(ws);
        if (message.type === "run") seen.add(message.run.id);
      });
      ws.on("error", reject);
    });

    const statuses: number[] = [];
    const wrong: string[] = [];
    const hookCall = async (body: Record<string, unknown>) => {
      const res = await call("POST", "/api/v1/ingest/claude-code", operator, body, { "x-hookplane-agent": "dev" });
      statuses.push(res.status);
      return res;
    };
    const common = (id: string) => ({ session_id: id, cwd: "/home/dev/project", transcript_path: "/tmp/t.jsonl", permission_mode: "default" });
    const session = async (i: number) => {
      const id = `pooled-${i}`;
      await hookCall({ ...common(id), hook_event_name: "SessionStart", source: "startup" });
      for (let c = 0; c < CALLS; c++) {
        const prod = c === 2;
        const tool = { tool_name: "Bash", tool_input: { command: prod ? "cat /srv/prod/secret" : `echo ${i}-${c}` }, tool_use_id: `toolu_${i}_${c}` };
        const pre = await hookCall({ ...common(id), hook_event_name: "PreToolUse", ...tool });
        const denied = pre.body?.hookSpecificOutput?.permissionDecision === "deny";
        if (denied !== prod) wrong.push(`${id} call ${c}: ${JSON.stringify(pre.body)}`);
        if (!denied) await hookCall({ ...common(id), hook_event_name: "PostToolUse", ...tool, tool_response: { stdout: "ok", stderr: "", interrupted: false } });
      }
      await hookCall({ ...common(id), hook_event_name: "SessionEnd", reason: "other" });
    };
    await Promise.all(Array.from({ length: SESSIONS }, (_, i) => session(i)));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(statuses).toHaveLength(SESSIONS * (2 + CALLS + CALLS - 1));
    expect(wrong).toEqual([]);

    // A call held for a person: the decision wakes it through LISTEN, long before its timeout.
    const held = hookCall({ ...common("pooled-approval"), hook_event_name: "PreToolUse", tool_name: "Deploy", tool_input: { target: "staging" }, tool_use_id: "toolu_deploy" });
    let pending: { id: string } | undefined;
    for (const until = Date.now() + 20_000; !pending && Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      pending = (await call("GET", "/api/v1/approvals?status=pending", operator)).body?.items?.[0];
    }
    expect(pending, "the held call's approval").toBeDefined();
    const decidedAt = Date.now();
    expect((await call("POST", `/api/v1/approvals/${pending!.id}/decision`, operator, { decision: "approve" })).status).toBe(200);
    const answer = await held;
    const wokenAfterMs = Date.now() - decidedAt;
    expect(answer.status).toBe(200);
    expect(answer.body?.hookSpecificOutput?.permissionDecision).not.toBe("deny");
    expect(wokenAfterMs).toBeLessThan(5_000);

    for (const until = Date.now() + 10_000; seen.size < SESSIONS + 1 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
    socket.close();
    expect(seen.size).toBeGreaterThanOrEqual(SESSIONS + 1);
    expect(server.output()).not.toMatch(/unsupported startup parameter|prepared statement|unhandled API error/);

    // The record, read from PostgreSQL itself: one finished run a session, seqs gapless, every
    // event and denial once, the guard's ledger row for every Bash call.
    const direct = new pg.Client({ connectionString: server.databaseUrl });
    await direct.connect();
    try {
      const runs = (await direct.query<{ external_session_id: string; status: string; last_seq: number; events: number; first: number; last: number; denials: number; guard_rows: number }>(`
        select r.external_session_id, r.status, r.last_seq,
          (select count(*)::int from run_events e where e.run_id = r.id) as events,
          (select min(seq)::int from run_events e where e.run_id = r.id) as first,
          (select max(seq)::int from run_events e where e.run_id = r.id) as last,
          (select count(*)::int from run_events e where e.run_id = r.id and e.type = 'loop.tool_denied') as denials,
          (select count(*)::int from hook_invocations h where h.run_id = r.id and h.hook_key = 'no-prod') as guard_rows
        from runs r where r.external_session_id like 'pooled-%' and r.external_session_id <> 'pooled-approval' order by r.external_session_id`)).rows;
      expect(runs).toHaveLength(SESSIONS);
      for (const run of runs) {
        // start, 5 pre, 4 post, 1 denial, end
        expect(run, run.external_session_id).toMatchObject({ status: "finished", events: 2 + CALLS + CALLS - 1 + 1, first: 1, denials: 1, guard_rows: CALLS });
        expect(run.last).toBe(run.events);
        expect(run.last_seq).toBe(run.events);
      }
      const approval = (await direct.query<{ status: string }>(`select a.status from approvals a join runs r on r.id = a.run_id where r.external_session_id = 'pooled-approval'`)).rows;
      expect(approval).toEqual([expect.objectContaining({ status: "approved" })]);
      // The migrations' lock went back: taken and released on PostgreSQL itself, not left with a pooled connection.
      const locks = (await direct.query<{ n: number }>(`select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = 7240114`)).rows[0].n;
      expect(locks).toBe(0);
    } finally {
      await direct.end();
    }
  }, 180_000);
});
