/**
 * A record an auditor can trust (issue 17, item 7): the audit log and the hook ledger are
 * append-only in the database itself, every row is SHA-256 chained to the one before, retention
 * deletes whole days from the oldest end without breaking the chain, and `GET /api/v1/audit/verify`
 * and `hookplane audit verify` name the first broken row. PGlite by default; PostgreSQL with
 * DATABASE_URL (where concurrent writers and sealers use separate connections and processes' pools).
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import canonicalize from "canonicalize";
import { sql, type SQL } from "drizzle-orm";
import { linkedRows } from "@/test/chain-rows";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase, openDatabase, type Db } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { deleteAuditDaysBefore, logAudit } from "@/db/queries/audit";
import { verifyChain } from "@/db/queries/chain-verification";
import { CHAIN_COLUMNS, HASHED_WHEN_PRESENT_COLUMNS, hashedColumnNames, sealChain, type ChainedTable, UNHASHED_COLUMNS } from "@/db/queries/hash-chain";
import { deleteLedgerDaysBefore, insertHookInvocations, type NewHookInvocation } from "@/db/queries/hook-invocations";
import { createRun } from "@/db/queries/runs";
import { auditLog, hookInvocations } from "@/db/schema";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import * as agentRoute from "@/app/api/v1/agents/[id]/route";
import * as verifyRoute from "@/app/api/v1/audit/verify/route";
import { callRoute } from "@/test/api-client";
import { GENESIS_HASH } from "@/lib/core/audit/chain-hash";
import { issueApiToken } from "@/lib/platform/auth/account-service";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { addPerson, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";

const onPostgres = Boolean(process.env.DATABASE_URL);
const APPEND_ONLY = /append-only/;

let t: TestDatabase;
let admin: string;
let operatorToken: string;
let viewerToken: string;

function ledgerRow(label: string, extra: Partial<NewHookInvocation> = {}): NewHookInvocation {
  return {
    event: "tool.pre",
    hookKey: "no-prod",
    hookVersion: 3,
    scope: "global",
    matched: true,
    verdict: "block",
    reason: `blocked ${label}`,
    mode: "enforce",
    action: "block",
    approval: { status: "approved", by: "ops@example.com", nested: { z: 1, a: [1.5, "ü", null] } },
    durationMs: 0.30000000000000004,
    ...extra,
  };
}

async function rows<T = Record<string, unknown>>(db: { execute(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }> }, text: string, params?: unknown[]) {
  return (await db.execute(text, params)).rows as T[];
}

/** What a superuser (or the tables' owner) can do: change rows with the append-only triggers off. */
async function asSuperuser(db: Db, table: ChainedTable | "chain_links", statement: SQL) {
  await db.transaction(async (tx) => {
    await tx.execute(sql.raw(`alter table ${table} disable trigger user`));
    await tx.execute(statement);
    await tx.execute(sql.raw(`alter table ${table} enable trigger user`));
  });
}

/**
 * The chain recomputed the way an auditor would from an export, without the app's code: each row
 * as JSON (timestamps as UTC ISO with microseconds, minus the chain's own columns), RFC 8785, SHA-256.
 */
async function recomputeIndependently(table: ChainedTable, startHash = GENESIS_HASH) {
  const sealed = await rows<{ content: Record<string, unknown>; hash: string; chain_seq: string | number }>(
    t,
    `select (to_jsonb(r) - 'chain_seq' - 'hash' - 'project_id') || jsonb_build_object('created_at', to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')) as content,
            r.hash, r.chain_seq
       from ${linkedRows(table, "r")} where r.chain_seq is not null order by r.chain_seq`,
  );
  let previous = startHash;
  return sealed.map((row) => {
    const content = typeof row.content === "string" ? JSON.parse(row.content) : row.content;
    // Columns added after rows were sealed count only when they hold a value (hash-chain.ts).
    for (const name of HASHED_WHEN_PRESENT_COLUMNS) if (content[name] === null) delete content[name];
    previous = createHash("sha256").update(previous + canonicalize(content)).digest("hex");
    return { position: Number(row.chain_seq), recomputed: previous, stored: row.hash };
  });
}

async function verify(token = admin) {
  return callRoute(verifyRoute.GET, { token, path: "/api/v1/audit/verify" });
}

async function sealedRow(table: ChainedTable, where: string) {
  const [row] = await rows<{ id: number; chain_seq: number; hash: string }>(t, `select id::int as id, chain_seq::int as chain_seq, hash from ${linkedRows(table)} where ${where}`);
  return row;
}

/** The verify route behind a real HTTP port, for the CLI. */
let server: Server;
let baseUrl: string;

function cli(args: string[], token: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.resolve("bin/hookplane.cjs"), ...args], {
      env: { ...process.env, HOOKPLANE_URL: baseUrl, HOOKPLANE_TOKEN: token },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  const root = await addPerson(t.db, { email: "admin@example.com", instanceAdmin: true, passwordHash: await hashPassword("long enough") });
  admin = (await addToken(t.db, { role: "admin", name: "setup", userId: root.id })).token;
  // What setting up the first admin leaves: an instance-level entry before any other.
  await logAudit(t.db, { projectId: null, actor: "setup", action: "user.create", entityType: "user", entityId: root.id });
  operatorToken = (await addToken(t.db, { role: "operator", name: "ops" })).token;
  viewerToken = (await addToken(t.db, { role: "viewer", name: "auditor" })).token;
  server = createServer(async (req, res) => {
    const response = await verifyRoute.GET(new Request(`http://localhost${req.url}`, { headers: req.headers as Record<string, string> }));
    res.writeHead(response.status, { "content-type": "application/json" }).end(await response.text());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await t?.drop();
});

describe("the chain", () => {
  test("every column of both tables is hashed, or is the chain's own (a new column needs a decision)", async () => {
    for (const table of ["audit_log", "hook_invocations"] as const) {
      const columns = (await rows<{ column_name: string }>(t, `select column_name from information_schema.columns where table_name = $1`, [table])).map((r) => r.column_name);
      expect([...hashedColumnNames(table), ...CHAIN_COLUMNS, ...UNHASHED_COLUMNS[table]].sort(), table).toEqual(columns.sort());
      // ...and the trigger refusing UPDATE lists every content column (drizzle/0009_append_only_chains.sql).
      const guarded = await rows<{ attname: string }>(
        t,
        `select a.attname from pg_trigger tg join pg_attribute a on a.attrelid = tg.tgrelid and a.attnum = any(tg.tgattr::int2[])
          where tg.tgname = $1 and tg.tgrelid = $2::regclass`,
        [`${table}_append_only_update`, table],
      );
      expect(guarded.map((g) => g.attname).sort(), table).toEqual(hashedColumnNames(table).sort());
    }
  });

  test("a row's hash is sha256(previous hash || RFC 8785 JSON of its stored values), written out by hand", async () => {
    await sealChain(t.db, { table: "audit_log" });
    await logAudit(t.db, { projectId: DEFAULT_PROJECT_ID, actor: "ops@example.com", action: "agent.update", entityType: "agent", entityId: "a-1", before: null, after: { z: { k: "v" }, a: 2 } });
    await sealChain(t.db, { table: "audit_log" });
    const [row] = await rows<{ id: number; chain_seq: number; hash: string; created: string; previous: string }>(
      t,
      `select a.id::int as id, a.chain_seq::int as chain_seq, a.hash,
              to_char(a.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created,
              (select p.hash from ${linkedRows("audit_log", "p")} where p.chain_seq = a.chain_seq - 1) as previous
         from ${linkedRows("audit_log", "a")} where a.action = 'agent.update'`,
    );
    expect(row.chain_seq).toBeGreaterThan(1);
    expect(row.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const canonical = `{"action":"agent.update","actor":"ops@example.com","after":{"a":2,"z":{"k":"v"}},"before":null,"created_at":"${row.created}","entity_id":"a-1","entity_type":"agent","id":${row.id}}`;
    expect(row.hash).toBe(createHash("sha256").update(row.previous + canonical).digest("hex"));
  });

  test("rows appended one after another are chained in insertion order from the genesis hash", async () => {
    for (let i = 0; i < 5; i++) await insertHookInvocations(t.db, { rows: [ledgerRow(`sequential ${i}`)] });
    const { sealed } = await sealChain(t.db, { table: "hook_invocations" });
    expect(sealed).toBe(5);
    const chain = await rows<{ id: number; chain_seq: number }>(t, `select id::int as id, chain_seq::int as chain_seq from ${linkedRows("hook_invocations")} order by chain_seq`);
    expect(chain.map((r) => r.chain_seq)).toEqual([1, 2, 3, 4, 5]);
    expect(chain.map((r) => r.id)).toEqual([...chain.map((r) => r.id)].sort((a, b) => a - b));
    const recomputed = await recomputeIndependently("hook_invocations");
    expect(recomputed.map((r) => r.recomputed)).toEqual(recomputed.map((r) => r.stored));
  });

  test("concurrent writers and concurrent sealers (another process's pool on PostgreSQL): every row sealed once, gapless, verifiable", async () => {
    const other = onPostgres ? await openDatabase({ databaseUrl: t.databaseUrl }) : undefined;
    const sealerDbs = [t.db, other?.db ?? t.db];
    try {
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 40; i++) {
        const writer = sealerDbs[i % 2];
        writes.push(insertHookInvocations(writer, { rows: [0, 1, 2, 3].map((k) => ledgerRow(`concurrent ${i}.${k}`, { eventSeq: k })) }));
        if (i % 4 === 0) writes.push(logAudit(writer, { projectId: DEFAULT_PROJECT_ID, actor: `writer-${i}`, action: "hook.update", entityType: "hook", entityId: `h${i}`, after: { i } }));
        if (i % 5 === 0) {
          writes.push(sealChain(sealerDbs[(i / 5) % 2], { table: "hook_invocations", skipIfBusy: i % 10 === 0 }));
          writes.push(sealChain(sealerDbs[((i / 5) + 1) % 2], { table: "audit_log" }));
        }
      }
      await Promise.all(writes);
      await Promise.all(sealerDbs.map((db) => sealChain(db, { table: "hook_invocations" })));
      await sealChain(t.db, { table: "audit_log" });
    } finally {
      await other?.close();
    }
    for (const table of ["hook_invocations", "audit_log"] as const) {
      const [stats] = await rows<{ n: number; sealed: number; distinct_seq: number; min: number; max: number }>(
        t,
        `select count(*)::int as n, count(chain_seq)::int as sealed, count(distinct chain_seq)::int as distinct_seq,
                min(chain_seq)::int as min, max(chain_seq)::int as max from ${linkedRows(table)}`,
      );
      expect(stats, table).toEqual({ n: stats.n, sealed: stats.n, distinct_seq: stats.n, min: 1, max: stats.n });
      const report = await verifyChain(t.db, { table });
      expect(report, table).toMatchObject({ rows: stats.n, unsealed: 0, head: { position: stats.n } });
      expect(report.firstBroken).toBeUndefined();
      const recomputed = await recomputeIndependently(table);
      expect(recomputed.filter((r) => r.recomputed !== r.stored), table).toEqual([]);
    }
    expect((await rows<{ n: number }>(t, "select count(*)::int as n from hook_invocations where reason like 'blocked concurrent%'"))[0].n).toBe(160);
  });

  test.skipIf(!onPostgres)("a row whose transaction commits late is sealed in id order: a seal waits for it, the periodic one passes it by", async () => {
    const other = await openDatabase({ databaseUrl: t.databaseUrl });
    try {
      await sealChain(t.db, { table: "hook_invocations" });
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let inserted!: () => void;
      const insertedSignal = new Promise<void>((r) => (inserted = r));
      const late = other.db.transaction(async (tx) => {
        await insertHookInvocations(tx, { rows: [ledgerRow("late commit")] });
        inserted();
        await gate;
      });
      await insertedSignal;
      await insertHookInvocations(t.db, { rows: [ledgerRow("early commit")] });
      // The periodic sealer looks, then finds its look not yet final while the late row's
      // transaction is open: it seals nothing rather than pass the lower id by.
      expect(await sealChain(t.db, { table: "hook_invocations", skipIfBusy: true })).toEqual({ sealed: 0, busy: false });
      expect(await sealChain(t.db, { table: "hook_invocations", skipIfBusy: true })).toEqual({ sealed: 0, busy: false });
      // A seal that must cover every committed row waits for that transaction.
      let done = false;
      const waiting = sealChain(t.db, { table: "hook_invocations" }).then((r) => ((done = true), r));
      await new Promise((r) => setTimeout(r, 300));
      expect(done).toBe(false);
      release();
      await late;
      expect(await waiting).toEqual({ sealed: 2, busy: false });
      const lateRow = await sealedRow("hook_invocations", "reason = 'blocked late commit'");
      const earlyRow = await sealedRow("hook_invocations", "reason = 'blocked early commit'");
      expect(lateRow.id).toBeLessThan(earlyRow.id);
      expect(earlyRow.chain_seq).toBe(lateRow.chain_seq + 1);
      const report = await verifyChain(t.db, { table: "hook_invocations" });
      expect(report.unsealed).toBe(0);
      expect(report.firstBroken).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});

describe("append-only in the database", () => {
  test("UPDATE, DELETE, TRUNCATE and a pre-sealed INSERT through plain SQL are refused, sealed row or not", async () => {
    await insertHookInvocations(t.db, { rows: [ledgerRow("refusals: sealed")] });
    await sealChain(t.db, { table: "hook_invocations" });
    await insertHookInvocations(t.db, { rows: [ledgerRow("refusals: unsealed")] });
    await logAudit(t.db, { projectId: DEFAULT_PROJECT_ID, actor: "refusals", action: "hook.update", entityType: "hook", entityId: "unsealed" });
    const sealed = await sealedRow("hook_invocations", "reason = 'blocked refusals: sealed'");
    const unsealed = await sealedRow("hook_invocations", "reason = 'blocked refusals: unsealed'");
    const [oldestAudit] = await rows<{ id: number }>(t, `select id::int as id from ${linkedRows("audit_log")} order by chain_seq limit 1`);
    const before = await rows(t, "select * from hook_invocations order by id");
    const linksBefore = await rows(t, "select * from chain_links order by table_name, chain_seq");
    const auditBefore = await rows(t, "select * from audit_log order by id");

    const refused: [string, string][] = [
      [`update hook_invocations set verdict = 'allow' where id = ${sealed.id}`, "UPDATE refused"],
      [`update hook_invocations set verdict = 'allow' where id = ${unsealed.id}`, "UPDATE refused"],
      [`update hook_invocations set hash = repeat('0', 64) where id = ${sealed.id}`, "UPDATE refused"],
      [`update hook_invocations set chain_seq = null, hash = null where id = ${sealed.id}`, "UPDATE refused"],
      [`update audit_log set actor = 'someone else' where id = ${oldestAudit.id}`, "UPDATE refused"],
      [`update audit_log set after = '{"forged": true}' where actor = 'refusals'`, "UPDATE refused"],
      [`delete from hook_invocations where id = ${sealed.id}`, "only the oldest rows may go"],
      [`delete from hook_invocations where id = ${unsealed.id}`, "not yet sealed"],
      [`delete from hook_invocations where id = (select row_id from chain_links where table_name = 'hook_invocations' and chain_seq = 1)`, "not retention"],
      [`update chain_links set hash = repeat('0', 64) where table_name = 'hook_invocations' and row_id = ${sealed.id}`, "UPDATE refused"],
      [`delete from chain_links where table_name = 'hook_invocations' and row_id = ${sealed.id}`, "DELETE refused"],
      [`truncate chain_links`, "TRUNCATE refused"],
      [`delete from hook_invocations`, "not yet sealed"],
      [`delete from audit_log where id = ${oldestAudit.id}`, "not retention"],
      [`truncate hook_invocations`, "TRUNCATE refused"],
      [`truncate audit_log`, "TRUNCATE refused"],
      [`insert into hook_invocations (event, hook_key, matched, chain_seq, hash) values ('tool.pre', 'forged', true, 999999, repeat('f', 64))`, "INSERT refused"],
      [`insert into audit_log (actor, action, entity_type, chain_seq, hash) values ('forger', 'x', 'y', 999999, repeat('f', 64))`, "INSERT refused"],
    ];
    for (const [statement, message] of refused) {
      await expect(t.execute(statement), statement).rejects.toThrow(APPEND_ONLY);
      await expect(t.execute(statement), statement).rejects.toThrow(message);
    }
    // A sealer-shaped update of a row that is still unsealed but with its content changed: refused too.
    await expect(
      t.execute(`update hook_invocations set chain_seq = 999999, hash = repeat('a', 64), verdict = 'allow' where id = ${unsealed.id}`),
    ).rejects.toThrow("UPDATE refused");

    // Nothing changed: the record and its chain are as they were.
    expect(await rows(t, "select * from hook_invocations order by id")).toEqual(before);
    expect(await rows(t, "select * from audit_log order by id")).toEqual(auditBefore);
    expect(await rows(t, "select * from chain_links order by table_name, chain_seq")).toEqual(linksBefore);
    const report = await verify();
    expect(report.body).toMatchObject({ ok: true });
  });

  test("deleting an agent keeps the ledger rows of its runs (the ledger outlives the run)", async () => {
    const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name: "short-lived", model: "scripted", tools: [], maxTurns: 3, timeoutMs: 10_000 } }))!;
    const run = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "hello", source: "api" });
    await insertHookInvocations(t.db, { rows: [ledgerRow("of a deleted agent", { runId: run.id }), ledgerRow("of a deleted agent", { runId: run.id, eventSeq: 2 })] });
    expect((await callRoute(agentRoute.DELETE, { method: "DELETE", token: admin, params: { id: agent.id } })).status).toBe(204);
    expect((await rows(t, "select id from runs where id = $1", [run.id])).length).toBe(0);
    const kept = await rows<{ run_id: string }>(t, "select run_id from hook_invocations where reason = 'blocked of a deleted agent'");
    expect(kept).toEqual([{ run_id: run.id }, { run_id: run.id }]);
    const report = await verify();
    expect(report.body.ok).toBe(true);
    expect(report.body.ledger.unsealed).toBe(0);
  });
});

describe("verify names the first broken row", () => {
  test("a ledger row changed by a superuser is named (id, position, expected vs stored hash) by the API and the CLI", async () => {
    await insertHookInvocations(t.db, { rows: ["tamper a", "tamper b", "tamper c"].map((label) => ledgerRow(label)) });
    await sealChain(t.db, { table: "hook_invocations" });
    const target = await sealedRow("hook_invocations", "reason = 'blocked tamper b'");
    const clean = await cli(["audit", "verify"], admin);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toMatch(/^audit log: intact, \d+ rows/m);
    expect(clean.stdout).toMatch(/^hook ledger: intact, \d+ rows/m);

    await asSuperuser(t.db, "hook_invocations", sql`update hook_invocations set verdict = 'allow', reason = 'nothing to see' where id = ${target.id}`);
    const res = await verify();
    expect(res.status).toBe(200);
    const [recomputed] = (await recomputeIndependently("hook_invocations")).filter((r) => r.position === target.chain_seq);
    expect(res.body).toMatchObject({
      ok: false,
      audit: { unsealed: 0 },
      ledger: {
        firstBroken: {
          table: "hook_invocations",
          id: target.id,
          position: target.chain_seq,
          storedHash: target.hash,
          expectedHash: recomputed.recomputed,
        },
      },
    });
    expect(res.body.audit.firstBroken).toBeUndefined();
    expect(res.body.ledger.firstBroken.expectedHash).not.toBe(target.hash);
    expect(res.body.ledger.firstBroken.problem).toMatch(/does not match its hash/);

    const broken = await cli(["audit", "verify"], admin);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`hook ledger: BROKEN at hook_invocations row id ${target.id}, position ${target.chain_seq}`);
    expect(broken.stdout).toContain(`expected hash ${recomputed.recomputed}`);
    expect(broken.stdout).toContain(`stored hash   ${target.hash}`);
    expect(broken.stdout).toMatch(/^audit log: intact/m);
    const json = await cli(["audit", "verify", "--json"], admin);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual(res.body);

    // Recomputing the changed row's own hash too only moves the break to the next row.
    await asSuperuser(t.db, "chain_links", sql`update chain_links set hash = ${recomputed.recomputed} where table_name = 'hook_invocations' and row_id = ${target.id}`);
    const next = await sealedRow("hook_invocations", `chain_seq = ${target.chain_seq + 1}`);
    expect((await verify()).body.ledger.firstBroken).toMatchObject({ id: next.id, position: target.chain_seq + 1, storedHash: next.hash });

    // Putting the row back as it was makes the chain whole again: the hash pins the exact content.
    await asSuperuser(
      t.db,
      "hook_invocations",
      sql`update hook_invocations set verdict = 'block', reason = 'blocked tamper b' where id = ${target.id}`,
    );
    await asSuperuser(t.db, "chain_links", sql`update chain_links set hash = ${target.hash} where table_name = 'hook_invocations' and row_id = ${target.id}`);
    expect((await verify()).body.ok).toBe(true);
    expect((await cli(["audit", "verify"], admin)).code).toBe(0);
  });

  test("a deleted middle row is found: the row after the gap is named", async () => {
    const target = await sealedRow("hook_invocations", "reason = 'blocked tamper b'");
    const [saved] = await rows<{ row: unknown }>(t, `select to_jsonb(h)::text as row from hook_invocations h where id = ${target.id}`);
    await asSuperuser(t.db, "hook_invocations", sql`delete from hook_invocations where id = ${target.id}`);
    const next = await sealedRow("hook_invocations", `chain_seq = ${target.chain_seq + 1}`);
    const res = await verify();
    expect(res.body.ok).toBe(false);
    expect(res.body.ledger.firstBroken).toMatchObject({ table: "hook_invocations", id: next.id, position: next.chain_seq, storedHash: next.hash });
    expect(res.body.ledger.firstBroken.problem).toBe(`the row at position ${target.chain_seq} is missing`);
    expect(res.body.ledger.firstBroken.expectedHash).not.toBe(next.hash);
    const out = await cli(["audit", "verify"], admin);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(`BROKEN at hook_invocations row id ${next.id}, position ${next.chain_seq}: the row at position ${target.chain_seq} is missing`);

    await asSuperuser(t.db, "hook_invocations", sql`insert into hook_invocations select * from jsonb_populate_record(null::hook_invocations, ${saved.row}::jsonb)`);
    expect((await verify()).body.ok).toBe(true);
  });

  test("the oldest rows deleted without retention are found, and so is a changed audit row", async () => {
    const first = await sealedRow("hook_invocations", "chain_seq = 1");
    const second = await sealedRow("hook_invocations", "chain_seq = 2");
    const third = await sealedRow("hook_invocations", "chain_seq = 3");
    const saved = await rows<{ row: string }>(t, `select to_jsonb(h)::text as row from hook_invocations h where id in (select row_id from chain_links where table_name = 'hook_invocations' and chain_seq <= 2) order by id`);
    await asSuperuser(t.db, "hook_invocations", sql`delete from hook_invocations where id in (select row_id from chain_links where table_name = 'hook_invocations' and chain_seq <= 2)`);
    const res = await verify();
    expect(res.body.ledger.firstBroken).toMatchObject({ id: third.id, position: 3, problem: "the rows at positions 1–2 are missing" });
    for (const row of saved) {
      await asSuperuser(t.db, "hook_invocations", sql`insert into hook_invocations select * from jsonb_populate_record(null::hook_invocations, ${row.row}::jsonb)`);
    }
    expect([first.id, second.id]).toEqual((await rows<{ id: number }>(t, `select id::int as id from ${linkedRows("hook_invocations")} where chain_seq <= 2 order by chain_seq`)).map((r) => r.id));

    const audit = await sealedRow("audit_log", "action = 'agent.update'");
    await asSuperuser(t.db, "audit_log", sql`update audit_log set after = '{"a": 3, "z": {"k": "v"}}' where id = ${audit.id}`);
    const changed = await verify();
    expect(changed.body).toMatchObject({ ok: false, audit: { firstBroken: { table: "audit_log", id: audit.id, position: audit.chain_seq, storedHash: audit.hash } } });
    expect(changed.body.ledger.firstBroken).toBeUndefined();
    // jsonb stores keys in its own order: the same value written with other key order verifies.
    await asSuperuser(t.db, "audit_log", sql`update audit_log set after = '{"z": {"k": "v"}, "a": 2}' where id = ${audit.id}`);
    expect((await verify()).body.ok).toBe(true);
  });
});

describe("a forged seal", () => {
  test("a link written by hand (the sealer's shape) is caught by verify; a row's own chain columns cannot be set at all", async () => {
    await sealChain(t.db, { table: "hook_invocations" });
    await insertHookInvocations(t.db, { rows: [ledgerRow("sealed by hand")] });
    const [head] = await rows<{ seq: number }>(t, `select max(chain_seq)::int as seq from ${linkedRows("hook_invocations")}`);
    const forged = "e".repeat(64);
    await expect(t.execute(`update hook_invocations set chain_seq = $1, hash = $2 where reason = 'blocked sealed by hand'`, [head.seq + 1, forged])).rejects.toThrow("UPDATE refused");
    await t.execute(
      `insert into chain_links (table_name, chain_seq, row_id, row_created_at, hash) select 'hook_invocations', $1, id, created_at, $2 from hook_invocations where reason = 'blocked sealed by hand'`,
      [head.seq + 1, forged],
    );
    const row = await sealedRow("hook_invocations", "reason = 'blocked sealed by hand'");
    const res = await verify();
    expect(res.body.ledger.firstBroken).toMatchObject({ id: row.id, position: head.seq + 1, storedHash: forged });
    // A link cannot be corrected with the right hash by anyone but a superuser.
    await expect(t.execute(`update chain_links set hash = $1 where table_name = 'hook_invocations' and row_id = $2`, [res.body.ledger.firstBroken.expectedHash, row.id])).rejects.toThrow(APPEND_ONLY);
    await asSuperuser(t.db, "chain_links", sql`update chain_links set hash = ${res.body.ledger.firstBroken.expectedHash} where table_name = 'hook_invocations' and row_id = ${row.id}`);
    expect((await verify()).body).toMatchObject({ ok: true, ledger: { head: { position: head.seq + 1 } } });
  });
});

describe("retention", () => {
  let r: TestDatabase;
  const day = 86_400_000;
  const midnight = (offsetDays: number) => new Date(Math.floor(Date.now() / day) * day + offsetDays * day);
  beforeAll(async () => {
    r = await createTestDatabase();
  });
  afterAll(async () => {
    await r?.drop();
  });
  const ledgerAt = (label: string, createdAt: Date) => r.db.insert(hookInvocations).values({ ...ledgerRow(label), createdAt });

  test("deleting whole days from the oldest end keeps verify green, and writes an anchor that nothing can change", async () => {
    // Three rows three days ago, two two days ago, two yesterday, two today, appended in that order.
    const plan: [number, number][] = [[-3, 3], [-2, 2], [-1, 2], [0, 2]];
    for (const [offset, n] of plan) {
      for (let i = 0; i < n; i++) await ledgerAt(`day ${offset} #${i}`, new Date(midnight(offset).getTime() + (i + 1) * 3_600_000));
    }
    for (const offset of [-2, 0]) {
      await r.db.insert(auditLog).values({ actor: "ops", action: "hook.update", entityType: "hook", entityId: `day ${offset}`, createdAt: new Date(midnight(offset).getTime() + 60_000) });
    }
    await sealChain(r.db, { table: "hook_invocations" });
    const fifth = await rows<{ hash: string }>(r, `select hash from ${linkedRows("hook_invocations")} where chain_seq = 5`);

    // `before` inside yesterday: the whole days before yesterday go, none of yesterday.
    const first = await deleteLedgerDaysBefore(r.db, { before: new Date(midnight(-1).getTime() + 13 * 3_600_000 + 37_000) });
    expect(first).toEqual({ deleted: 5, before: midnight(-1), anchor: { position: 5, hash: fifth[0].hash } });
    expect((await rows<{ reason: string }>(r, `select reason from ${linkedRows("hook_invocations")} order by chain_seq`)).map((x) => x.reason)).toEqual([
      "blocked day -1 #0", "blocked day -1 #1", "blocked day 0 #0", "blocked day 0 #1",
    ]);
    const anchors = await rows(r, "select table_name, chain_seq::int as chain_seq, hash, deleted_rows from chain_anchors");
    expect(anchors).toEqual([{ table_name: "hook_invocations", chain_seq: 5, hash: fifth[0].hash, deleted_rows: 5 }]);
    const afterFirst = await verifyChain(r.db, { table: "hook_invocations" });
    expect(afterFirst).toMatchObject({ rows: 4, unsealed: 0, head: { position: 9 }, anchor: { position: 5, hash: fifth[0].hash, before: midnight(-1).toISOString() } });
    expect(afterFirst.firstBroken).toBeUndefined();

    expect(await deleteLedgerDaysBefore(r.db, { before: midnight(-1) })).toEqual({ deleted: 0, before: midnight(-1) });
    // Retention is the only DELETE: the new oldest row still cannot go by hand, nor can the anchor.
    await expect(r.execute("delete from hook_invocations where id = (select row_id from chain_links where table_name = 'hook_invocations' and chain_seq = 6)")).rejects.toThrow("not retention");
    await expect(r.execute("update chain_anchors set hash = repeat('0', 64)")).rejects.toThrow(APPEND_ONLY);
    await expect(r.execute("delete from chain_anchors")).rejects.toThrow(APPEND_ONLY);
    await expect(r.execute("truncate chain_anchors")).rejects.toThrow(APPEND_ONLY);
    // Nor can an anchor be written by hand unless it is shaped like retention's.
    for (const forged of [
      `select 'hook_invocations', 6, hash, now(), 1 from ${linkedRows("hook_invocations")} where chain_seq = 6`,
      `select 'hook_invocations', 6, repeat('0', 64), '${midnight(0).toISOString()}', 1`,
      `select 'hook_invocations', 4, hash, '${midnight(0).toISOString()}', 1 from chain_anchors`,
      `select 'users', 1, repeat('0', 64), '${midnight(0).toISOString()}', 1`,
    ]) {
      await expect(r.execute(`insert into chain_anchors (table_name, chain_seq, hash, before, deleted_rows) ${forged}`), forged).rejects.toThrow(APPEND_ONLY);
    }

    // A row of an old day sealed after today's (its transaction committed late) stays until the
    // chain before it goes too: retention never cuts a hole in the chain.
    await ledgerAt("straggler from day -2", new Date(midnight(-2).getTime() + 7_200_000));
    await sealChain(r.db, { table: "hook_invocations" });
    expect(await deleteLedgerDaysBefore(r.db, { before: midnight(0) })).toMatchObject({ deleted: 2, anchor: { position: 7 } });
    expect((await rows<{ reason: string }>(r, `select reason from ${linkedRows("hook_invocations")} order by chain_seq`)).map((x) => x.reason)).toEqual([
      "blocked day 0 #0", "blocked day 0 #1", "blocked straggler from day -2",
    ]);
    expect((await verifyChain(r.db, { table: "hook_invocations" })).firstBroken).toBeUndefined();

    // Everything, then new rows: they link to the anchor.
    expect(await deleteLedgerDaysBefore(r.db, { before: midnight(1) })).toMatchObject({ deleted: 3, anchor: { position: 10 } });
    expect(await verifyChain(r.db, { table: "hook_invocations" })).toMatchObject({ rows: 0, unsealed: 0, head: { position: 10 }, anchor: { position: 10 } });
    await insertHookInvocations(r.db, { rows: [ledgerRow("after a full purge")] });
    await sealChain(r.db, { table: "hook_invocations" });
    const afterPurge = await verifyChain(r.db, { table: "hook_invocations" });
    expect(afterPurge).toMatchObject({ rows: 1, head: { position: 11 } });
    expect(afterPurge.firstBroken).toBeUndefined();

    // The audit log's retention works the same way.
    expect(await deleteAuditDaysBefore(r.db, { before: midnight(-1) })).toMatchObject({ deleted: 1, anchor: { position: 1 } });
    const audit = await verifyChain(r.db, { table: "audit_log" });
    expect(audit).toMatchObject({ rows: 1, head: { position: 2 }, anchor: { position: 1 } });
    expect(audit.firstBroken).toBeUndefined();
  });

  test("a row put back below the anchor (retention undone by hand) breaks the chain", async () => {
    // The first row retention deleted, put back with its id: the sealer went past it long ago.
    await asSuperuser(r.db, "hook_invocations", sql`insert into hook_invocations (id, event, hook_key, matched) values (1, 'tool.pre', 'revenant', true)`);
    const report = await verifyChain(r.db, { table: "hook_invocations" });
    expect(report.firstBroken).toMatchObject({ id: 1, problem: "the sealer went past this row (retention deleted it, or it was written by hand), yet no link of the chain names it" });
  });
});

describe("who may verify", () => {
  test("a project's admin (token or session) may verify; operator and viewer get 403, no token 401; the CLI says so and exits 2", async () => {
    expect((await verify()).status).toBe(200);
    for (const token of [operatorToken, viewerToken]) {
      const res = await verify(token);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
      expect(JSON.stringify(res.body)).not.toMatch(/[0-9a-f]{64}/);
    }
    expect((await callRoute(verifyRoute.GET, { path: "/api/v1/audit/verify" })).status).toBe(401);
    const denied = await cli(["audit", "verify"], operatorToken);
    expect(denied.code).toBe(2);
    expect(denied.stderr).toContain("answered 403");
    expect(denied.stdout).toBe("");
  });
});
