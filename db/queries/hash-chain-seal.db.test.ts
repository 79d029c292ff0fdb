/**
 * The sealer writes each row's canonical JSON straight from what it read (sealedRowCanonical), not
 * through contentOf and canonicalJson as verification does: the two must be the same text for
 * every value the columns can hold, or every row sealed would fail its check. Both tables, rows of
 * awkward values (nulls where a column is hashed only when present, nested and unicode jsonb, a
 * float that does not round, ids the driver hands over as text), on PGlite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { asc, eq, isNotNull, sql } from "drizzle-orm";
import { logAudit } from "@/db/queries/audit";
import { verifyChain } from "@/db/queries/chain-verification";
import { chainTable, contentFields, contentOf, sealChain, sealedRowCanonical, unsealedRows, type ChainedTable } from "@/db/queries/hash-chain";
import { insertHookInvocations } from "@/db/queries/hook-invocations";
import { chainLinks, DEFAULT_PROJECT_ID, hookInvocations } from "@/db/schema";
import { canonicalJson } from "@/lib/core/audit/chain-hash";
import { createTestDatabase, type TestDatabase } from "@/test/database";

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  await insertHookInvocations(t.db, {
    rows: [
      // Nothing optional: the columns hashed only when present are left out of the content.
      { event: "tool.pre", hookKey: "bare", matched: false },
      {
        event: "tool.pre",
        hookKey: "ünïcode-☃",
        hookVersion: 7,
        eventSeq: 2147483647,
        scope: "person:11111111-1111-4111-8111-111111111111",
        matched: true,
        verdict: "block",
        reason: 'quotes " and \\ and \n newline, 😀',
        mode: "shadow",
        action: "block",
        failed: true,
        timedOut: true,
        ignored: true,
        approval: { z: 1, a: [1.5, "ü", null, { "😀": true, "": 0 }], n: -0.000001, big: 1e21 },
        modification: { kind: "input", proposed: { command: "rm -rf /" }, effective: { command: "ls" }, applied: false },
        exitCode: -1,
        stdout: "",
        stderr: "\u2028\u2029",
        output: "x".repeat(5000),
        durationMs: 0.30000000000000004,
        actorKey: "user:11111111-1111-4111-8111-111111111111",
        actor: { label: "a@example.com", role: "operator", tier: "subagent", parent: { sessionId: "s-1" }, groups: [] },
      },
    ],
  });
  // Values only a hand-written row holds: a jsonb `null` (present, unlike SQL NULL) where a column
  // is hashed only when present, floats JSON cannot write, a jsonb number past a double, -0.
  await t.db.execute(sql`insert into hook_invocations (event, hook_key, matched, duration_ms, actor, modification, approval)
    values ('tool.pre', 'by hand 1', true, 'NaN', 'null'::jsonb, '{"n": 1e400, "m": -0.0, "s": "\u2028"}'::jsonb, 'null'::jsonb),
           ('tool.pre', 'by hand 2', true, '-Infinity', null, 'null'::jsonb, '[1e-7, 123456789012345678901234567890]'::jsonb),
           ('tool.pre', 'by hand 3', true, '-0', '{}'::jsonb, null, null)`);
  await logAudit(t.db, { projectId: DEFAULT_PROJECT_ID, actor: "admin@example.com", action: "hook.update", entityType: "hook", entityId: "h-1", before: { enabled: true, spec: { b: 2, a: [1] } }, after: null });
  await logAudit(t.db, { projectId: DEFAULT_PROJECT_ID, actor: "ops", action: "x", entityType: "y" });
});

afterAll(async () => {
  await t?.close();
});

describe.each(["hook_invocations", "audit_log"] as ChainedTable[])("%s", (table) => {
  test("each unsealed row in canonical JSON as the sealer writes it is what verification computes", async () => {
    const sealerRows = await unsealedRows(t.db, table, { after: 0, upTo: Number.MAX_SAFE_INTEGER });
    const ct = chainTable(table);
    const checkRows = await t.db.select(contentFields(table)).from(ct).orderBy(asc(ct.id));
    expect(sealerRows.length).toBe(table === "hook_invocations" ? 5 : 2);
    expect(sealerRows.map((r) => Number(r.id))).toEqual(checkRows.map((r) => (r as { id: number }).id));
    for (const [i, row] of sealerRows.entries()) {
      const expected = canonicalJson(contentOf(table, checkRows[i] as Record<string, unknown>));
      expect(sealedRowCanonical(table, row)).toBe(expected);
    }
    // The optional columns of the bare ledger row are absent, not null; the id is a number.
    if (table === "hook_invocations") {
      const bare = sealedRowCanonical(table, sealerRows[0]);
      expect(bare).not.toContain('"actor"');
      expect(bare).not.toContain('"modification"');
      expect(bare).toMatch(/"id":\d+,/);
    }
  });

  test("sealed by the sealer, the chain verifies", async () => {
    const sealed = await sealChain(t.db, { table });
    expect(sealed.sealed).toBeGreaterThanOrEqual(2);
    const report = await verifyChain(t.db, { table });
    expect(report.firstBroken).toBeUndefined();
    expect(report.unsealed).toBe(0);
    // Each row linked once, in id order from position 1; the rows themselves untouched.
    const ct = chainTable(table);
    const ids = (await t.db.select({ id: ct.id }).from(ct).orderBy(asc(ct.id))).map((r) => r.id);
    const links = await t.db.select({ seq: chainLinks.chainSeq, rowId: chainLinks.rowId }).from(chainLinks).where(eq(chainLinks.tableName, table)).orderBy(asc(chainLinks.chainSeq));
    expect(links).toEqual(ids.map((id, i) => ({ seq: i + 1, rowId: id })));
    expect(await t.db.select({ id: ct.id }).from(ct).where(isNotNull(ct.chainSeq))).toEqual([]);
  });
});

test("ids no row holds (burned by rolled-back inserts) are passed over in windows, and the rows after them sealed in order", async () => {
  await insertHookInvocations(t.db, { rows: [{ event: "tool.pre", hookKey: "before the burn", matched: true }] });
  // 50,000 ids handed out and never used: more than a batch looks through at once.
  await t.db.execute(sql`select setval(pg_get_serial_sequence('hook_invocations', 'id'), (select max(id) from hook_invocations) + 50000)`);
  await insertHookInvocations(t.db, { rows: [{ event: "tool.pre", hookKey: "after the burn", matched: true }] });
  expect((await sealChain(t.db, { table: "hook_invocations" })).sealed).toBe(2);
  const links = await t.db
    .select({ hookKey: hookInvocations.hookKey, seq: chainLinks.chainSeq })
    .from(chainLinks)
    .innerJoin(hookInvocations, eq(hookInvocations.id, chainLinks.rowId))
    .where(eq(chainLinks.tableName, "hook_invocations"))
    .orderBy(asc(chainLinks.chainSeq));
  expect(links.slice(-2)).toEqual([{ hookKey: "before the burn", seq: links.length - 1 }, { hookKey: "after the burn", seq: links.length }]);
  expect((await verifyChain(t.db, { table: "hook_invocations" })).firstBroken).toBeUndefined();
});


test("seals that run at once (the periodic sealer beside a verification, a retention or a run's removal) link each row once, in order", async () => {
  // On PGlite a batch is read and hashed before it takes the lock, so these read the same rows
  // and all but one find the chain moved when they come to write, and read again.
  const rows = Array.from({ length: 2_500 }, (_, i) => ({ event: "tool.pre", hookKey: `concurrent-${i}`, matched: i % 2 === 0 }));
  await insertHookInvocations(t.db, { rows });
  const results = await Promise.all([
    sealChain(t.db, { table: "hook_invocations" }),
    sealChain(t.db, { table: "hook_invocations" }),
    sealChain(t.db, { table: "hook_invocations" }),
  ]);
  expect(results.reduce((n, r) => n + r.sealed, 0)).toBe(rows.length);
  const ids = (await t.db.select({ id: hookInvocations.id }).from(hookInvocations).orderBy(asc(hookInvocations.id))).map((r) => r.id);
  const links = await t.db
    .select({ seq: chainLinks.chainSeq, rowId: chainLinks.rowId })
    .from(chainLinks)
    .where(eq(chainLinks.tableName, "hook_invocations"))
    .orderBy(asc(chainLinks.chainSeq));
  expect(links).toEqual(ids.map((id, i) => ({ seq: i + 1, rowId: id })));
  const report = await verifyChain(t.db, { table: "hook_invocations" });
  expect(report.firstBroken).toBeUndefined();
  expect(report.unsealed).toBe(0);
}, 60_000);
