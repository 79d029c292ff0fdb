/**
 * The signed record's part of npm run bench:chain (bench/hash-chain.ts; BENCH_ONLY_SIGNED=1 runs it
 * alone): what signing a head adds to a seal, and a bundle exported and checked offline by the
 * real CLI beside verifyChain and a bare read-and-parse loop.
 */
import { spawn } from "node:child_process";
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import readline from "node:readline";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { verifyChain } from "@/db/queries/chain-verification";
import { sealChain } from "@/db/queries/hash-chain";
import { chainSeals, hookInvocations } from "@/db/schema";
import { insertHookInvocations } from "@/db/queries/hook-invocations";
import { chainBundleLines } from "@/lib/features/audit/chain-bundle";
import { verifyStatement } from "@/lib/core/audit/chain-signature";
import { ledgerSigningKey, signWithLedgerKey } from "@/lib/platform/security/ledger-signing-key";
import { median } from "./bench-support";
import { dispatchRows, measure, writeLedger, type Target } from "./chain-harness";

const BUNDLE_ROWS = Number(process.env.BENCH_BUNDLE_ROWS ?? 100_000);
const SMALL_BATCH = 2;
const SMALL_BATCHES = 300;

/**
 * What the signature adds to a seal. Per batch: one Ed25519 signature and one chain_seals insert
 * (its guard trigger probes the sealed row). Measured alone, beside the seal of a small batch (the
 * periodic sealer seals what a second brought) and of a full one (2,000 rows).
 */
export async function signing(target: Target) {
  const statement = { kind: "head", table: "hook_invocations", position: 1, hash: "a".repeat(64), signedAt: new Date().toISOString() } as const;
  const key = ledgerSigningKey();
  for (let i = 0; i < 200; i++) signWithLedgerKey(statement);
  const signs: number[] = [];
  const verifies: number[] = [];
  for (let i = 0; i < 2_000; i++) {
    const t0 = performance.now();
    const { signature } = signWithLedgerKey({ ...statement, position: i });
    const t1 = performance.now();
    verifyStatement(key.publicKey, { ...statement, position: i }, signature);
    verifies.push(performance.now() - t1);
    signs.push(t1 - t0);
  }
  const db = await target.open(1);
  try {
    const handle = db.handles[0];
    // Small batches: SMALL_BATCH rows appended, then sealed, SMALL_BATCHES times.
    let batches = 0;
    const small = await measure([handle], () => batches, async () => {
      for (let i = 0; i < SMALL_BATCHES; i++) {
        await insertHookInvocations(handle.db, { rows: dispatchRows().slice(0, SMALL_BATCH) });
        await sealChain(handle.db, { table: "hook_invocations" });
        batches++;
      }
    });
    // The same inserts, unsealed: what the loop costs besides the seal.
    let inserts = 0;
    const insertOnly = await measure([handle], () => inserts, async () => {
      for (let i = 0; i < SMALL_BATCHES; i++) {
        await insertHookInvocations(handle.db, { rows: dispatchRows().slice(0, SMALL_BATCH) });
        inserts++;
      }
    });
    await sealChain(handle.db, { table: "hook_invocations" });
    // A full batch.
    await writeLedger([handle], 2_000, 1);
    let full = 0;
    const fullBatch = await measure([handle], () => 1, async () => (full = (await sealChain(handle.db, { table: "hook_invocations" })).sealed));
    if (full !== 2_000) throw new Error(`a full batch sealed ${full} rows`);
    // The head alone: a signature and the insert, for positions that have no head yet, in one
    // transaction (in a seal they share the seal's: no commit of their own).
    const { rows } = await handle.execute(
      "select chain_seq::int as seq, hash from chain_links l where table_name = 'hook_invocations' and not exists (select 1 from chain_seals s where s.table_name = 'hook_invocations' and s.chain_seq = l.chain_seq) order by chain_seq limit 500",
    );
    let heads = 0;
    const head = await measure([handle], () => heads, () =>
      handle.db.transaction(async (tx) => {
        for (const row of rows as { seq: number; hash: string }[]) {
          const signedAt = new Date();
          const signature = signWithLedgerKey({ kind: "head", table: "hook_invocations", position: row.seq, hash: row.hash, signedAt: signedAt.toISOString() });
          await tx.insert(chainSeals).values({ tableName: "hook_invocations", chainSeq: row.seq, hash: row.hash, signedAt, ...signature });
          heads++;
        }
      }),
    );
    const sealOnly = { wall: small.wall - insertOnly.wall, cpu: small.cpu - insertOnly.cpu };
    const us = (n: number) => n.toFixed(0).padStart(6);
    console.log(`  signed heads: Ed25519 sign ${median(signs).toFixed(3)} ms, verify ${median(verifies).toFixed(3)} ms (node:crypto, median of 2,000)`);
    console.log(
      `    one head per seal (sign + chain_seals insert): ${us(head.wall)} µs wall, ${us(head.cpu)} µs CPU; a ${SMALL_BATCH}-row seal batch ${us(sealOnly.wall)} µs wall, ${us(sealOnly.cpu)} µs CPU (the head ${((head.cpu / sealOnly.cpu) * 100).toFixed(0)}% of its CPU); a 2,000-row batch ${(fullBatch.wall / 1000).toFixed(1)} ms wall (the head ${((head.wall / fullBatch.wall) * 100).toFixed(2)}%)`,
    );
  } finally {
    await db.drop();
  }
}

/** Rows/s of reading `file` line by line and parsing each: the ceiling of a line-by-line checker in node. */
async function bareReadRate(file: string, rows: number): Promise<number> {
  const t0 = performance.now();
  let parsed = 0;
  for await (const line of readline.createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity })) {
    if (JSON.parse(line).type === "row") parsed++;
  }
  if (parsed !== rows) throw new Error(`read ${parsed} rows of ${rows}`);
  return rows / ((performance.now() - t0) / 1000);
}

/** A bundle of BUNDLE_ROWS rows: exported, then checked offline by the CLI, then by verifyChain. */
export async function bundle(target: Target) {
  if (BUNDLE_ROWS <= 0) return;
  const db = await target.open(1);
  const dir = mkdtempSync(path.join(tmpdir(), "hookplane-bench-bundle-"));
  try {
    const handle = db.handles[0];
    const batch: (typeof hookInvocations.$inferInsert)[] = [];
    for (let i = 0; i < BUNDLE_ROWS; i += 2) {
      batch.push(...dispatchRows().map((r) => ({ ...r, approval: i % 10 === 0 ? { status: "approved", by: "ops@example.com", note: "ünïcödé ✓" } : null })));
      if (batch.length >= 1_000) await handle.db.insert(hookInvocations).values(batch.splice(0));
    }
    if (batch.length > 0) await handle.db.insert(hookInvocations).values(batch.splice(0));
    await sealChain(handle.db, { table: "hook_invocations" });
    const file = path.join(dir, "bundle.ndjson");
    const t0 = performance.now();
    const out = createWriteStream(file);
    for await (const page of chainBundleLines(handle.db, { table: "hook_invocations" })) {
      if (!out.write(page.map((line) => `${JSON.stringify(line)}
`).join(""))) await once(out, "drain");
    }
    out.end();
    await once(out, "finish");
    const exportS = (performance.now() - t0) / 1000;
    const keyFile = path.join(dir, "keys.json");
    writeFileSync(keyFile, JSON.stringify({ keys: [ledgerSigningKey().publicKey] }));
    const cli = async () => {
      const started = performance.now();
      const child = spawn(process.execPath, [path.resolve("bin/hookplane.cjs"), "audit", "verify", "--bundle", file, "--public-key", keyFile, "--json"], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let stdout = "";
      child.stdout.on("data", (c) => (stdout += c));
      const [code] = (await once(child, "close")) as [number];
      const report = JSON.parse(stdout) as { ok: boolean; rows: number };
      if (code !== 0 || !report.ok || report.rows !== BUNDLE_ROWS) throw new Error(`the CLI said ${code}: ${stdout.slice(0, 300)}`);
      return BUNDLE_ROWS / ((performance.now() - started) / 1000);
    };
    await cli();
    const cliRates = [await cli(), await cli(), await cli()];
    const bare = median([await bareReadRate(file, BUNDLE_ROWS), await bareReadRate(file, BUNDLE_ROWS), await bareReadRate(file, BUNDLE_ROWS)]);
    const v0 = performance.now();
    const report = await verifyChain(handle.db, { table: "hook_invocations" });
    if (report.firstBroken || report.rows !== BUNDLE_ROWS) throw new Error(`verify: ${JSON.stringify(report.firstBroken)}`);
    const serverRate = BUNDLE_ROWS / ((performance.now() - v0) / 1000);
    const cliRate = median(cliRates);
    const mb = statSync(file).size / 1e6;
    console.log(
      `  bundle of ${BUNDLE_ROWS} rows (${mb.toFixed(1)} MB, ${report.signatures?.heads} signed heads): exported at ${Math.round(BUNDLE_ROWS / exportS)} rows/s; the CLI offline ${Math.round(cliRate)} rows/s (whole process, median of 3) = ${((cliRate / bare) * 100).toFixed(0)}% of a bare read-and-parse loop (${Math.round(bare)} rows/s), ${(cliRate / serverRate).toFixed(2)}× verifyChain on the database (${Math.round(serverRate)} rows/s)`,
    );
  } finally {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
