/**
 * A signed record (issue 27, item 6): every seal signs the chain's head with the instance's Ed25519
 * key (chain_seals), retention's anchors and deleted runs' gaps are signed too, the public key is
 * published at /.well-known/hookplane-ledger-keys, and `hookplane audit verify --bundle <file>`
 * checks a bundle from GET /api/v1/audit/bundle offline (no server, no network: the route is called
 * in this process and nothing listens when the CLI runs), naming the first thing that does not
 * verify. PGlite by default; PostgreSQL with DATABASE_URL.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { linkedRows } from "@/test/chain-rows";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase, type Db } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { verifyChain } from "@/db/queries/chain-verification";
import { sealChain } from "@/db/queries/hash-chain";
import { deleteLedgerDaysBefore } from "@/db/queries/hook-invocations";
import { createSession } from "@/db/queries/sessions";
import { DEFAULT_PROJECT_ID, hookInvocations, runs } from "@/db/schema";
import { hashPassword } from "@/lib/platform/auth/password";
import { hashSecretToken, newSecretToken } from "@/lib/platform/auth/secret-token";
import { forgetSecretBox } from "@/lib/platform/security/instance-secret-box";
import { callRoute } from "@/test/api-client";
import { setEnv } from "@/test/config-env";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPerson, addToken } from "@/test/people";
import * as runRoute from "@/app/api/v1/runs/[id]/route";
import * as bundleRoute from "@/app/api/v1/audit/bundle/route";
import * as verifyRoute from "@/app/api/v1/audit/verify/route";
import * as keysRoute from "@/app/.well-known/hookplane-ledger-keys/route";
import { chainSigningKeyFromSeed, verifyStatement, type ChainPublicKey, type SignedStatement } from "@/lib/core/audit/chain-signature";
import { ledgerSigningKey } from "@/lib/platform/security/ledger-signing-key";

const require = createRequire(import.meta.url);
const { chainHash } = require("../../../bin/lib/canonical-json.cjs") as { chainHash(previous: string, content: unknown): string };

const APPEND_ONLY = /append-only/;
const DAY = 86_400_000;
const midnight = (offsetDays: number) => new Date(Math.floor(Date.now() / DAY) * DAY + offsetDays * DAY);

let t: TestDatabase;
let restoreEnv: () => void;
let cookie: string;
let projectAdminToken: string;
let agentId: string;
let dir: string;
let keysFile: string;

type Line = Record<string, unknown> & { type: string };

async function rows<T = Record<string, unknown>>(text: string, params?: unknown[]) {
  return (await t.execute(text, params)).rows as T[];
}

async function ledger(values: Partial<typeof hookInvocations.$inferInsert> & { reason: string }) {
  await t.db.insert(hookInvocations).values({ event: "tool.pre", hookKey: "guard", matched: true, verdict: "allow", ...values });
}

async function finishedRun(label: string) {
  const [run] = await t.db
    .insert(runs)
    .values({ projectId: DEFAULT_PROJECT_ID, agentId, prompt: label, source: "api", status: "finished", outcome: "completed", finishedAt: new Date() })
    .returning();
  return run.id;
}

/** What a superuser (or the tables' owner) can do: change rows with the append-only triggers off. */
async function asSuperuser(db: Db, table: string, statement: ReturnType<typeof sql>) {
  await db.transaction(async (tx) => {
    await tx.execute(sql.raw(`alter table ${table} disable trigger user`));
    await tx.execute(statement);
    await tx.execute(sql.raw(`alter table ${table} enable trigger user`));
  });
}

async function downloadBundle(table = "hook_invocations", headers: Record<string, string> = { cookie: `hp_session=${cookie}` }) {
  const response = await bundleRoute.GET(new Request(`http://localhost/api/v1/audit/bundle?table=${table}`, { headers }));
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

const parse = (text: string): Line[] => text.trim().split("\n").map((l) => JSON.parse(l) as Line);
const serialize = (lines: Line[]) => `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;

let fileNo = 0;
function writeBundle(content: string | Line[]): string {
  const file = path.join(dir, `bundle-${++fileNo}.ndjson`);
  writeFileSync(file, typeof content === "string" ? content : serialize(content));
  return file;
}

/** The real CLI, offline: HOOKPLANE_URL points where nothing listens. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.resolve("bin/hookplane.cjs"), ...args], {
      env: { PATH: process.env.PATH, HOOKPLANE_URL: "http://127.0.0.1:9", HOOKPLANE_CONFIG_DIR: process.env.HOOKPLANE_CONFIG_DIR } as unknown as NodeJS.ProcessEnv,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const verifyFile = (file: string, ...extra: string[]) => cli(["audit", "verify", "--bundle", file, "--public-key", keysFile, ...extra]);

/** Re-signs a statement line with `key` (a forger's), as the bundle carries it. */
function resign(line: Line, table: string, key: ReturnType<typeof chainSigningKeyFromSeed>): Line {
  const statement: SignedStatement =
    line.type === "seal"
      ? { kind: "head", table, position: line.position as number, hash: line.hash as string, signedAt: line.signedAt as string }
      : line.type === "anchor"
        ? { kind: "anchor", table, position: line.position as number, hash: line.hash as string, before: line.before as string }
        : {
            kind: "gap",
            table,
            firstPosition: line.firstPosition as number,
            lastPosition: line.lastPosition as number,
            previousHash: line.previousHash as string | null,
            hash: line.hash as string,
            runId: line.runId as string,
          };
  return { ...line, keyId: key.keyId, signature: key.sign(statement) };
}

beforeAll(async () => {
  restoreEnv = setEnv({ HOOKPLANE_SECRET_KEY: randomBytes(32).toString("base64") });
  forgetSecretBox();
  t = await createTestDatabase();
  installDatabase(t);
  const root = await addPerson(t.db, { email: "root@example.com", instanceAdmin: true, passwordHash: await hashPassword("long enough"), role: "admin" });
  cookie = newSecretToken("");
  await createSession(t.db, { tokenHash: hashSecretToken(cookie), userId: root.id, ttlMs: 3600_000 });
  projectAdminToken = (await addToken(t.db, { role: "admin", name: "project admin", userId: root.id })).token;
  agentId = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name: "signed", model: "scripted", tools: [], maxTurns: 3, timeoutMs: 10_000 } }))!.id;
  dir = mkdtempSync(path.join(tmpdir(), "hookplane-bundle-"));
  keysFile = path.join(dir, "hookplane-ledger-keys.json");
});
afterAll(async () => {
  await t?.drop();
  rmSync(dir, { recursive: true, force: true });
  restoreEnv?.();
  forgetSecretBox();
});

describe("every seal signs its head", () => {
  test("each sealed batch writes one signed head in its transaction, verifiable with the key published at the well-known URL (no sign-in)", async () => {
    const published = await callRoute(keysRoute.GET, { path: "/.well-known/hookplane-ledger-keys" });
    expect(published.status).toBe(200);
    expect(published.body).toEqual({ keys: [ledgerSigningKey().publicKey] });
    const [key] = published.body.keys as ChainPublicKey[];
    expect(key).toMatchObject({ kty: "OKP", crv: "Ed25519", use: "sig", alg: "EdDSA" });
    expect(Buffer.from(key.x, "base64url")).toHaveLength(32);
    writeFileSync(keysFile, JSON.stringify(published.body));

    // Four rows from three days ago (retention will take them), sealed in two batches.
    for (const i of [1, 2]) await ledger({ reason: `old ${i}`, createdAt: new Date(midnight(-3).getTime() + i * 60_000) });
    await sealChain(t.db, { table: "hook_invocations" });
    for (const i of [3, 4]) await ledger({ reason: `old ${i}`, createdAt: new Date(midnight(-3).getTime() + i * 60_000) });
    await sealChain(t.db, { table: "hook_invocations" });
    const seals = await rows<{ table_name: string; chain_seq: number; hash: string; signed_at: Date; key_id: string; signature: string }>(
      "select table_name, chain_seq::int as chain_seq, hash, signed_at, key_id, signature from chain_seals order by chain_seq",
    );
    const hashes = await rows<{ chain_seq: number; hash: string }>(`select chain_seq::int as chain_seq, hash from ${linkedRows("hook_invocations")} order by chain_seq`);
    expect(seals.map((s) => [s.chain_seq, s.hash])).toEqual([
      [2, hashes[1].hash],
      [4, hashes[3].hash],
    ]);
    for (const seal of seals) {
      expect(seal.key_id).toBe(key.kid);
      const statement: SignedStatement = { kind: "head", table: "hook_invocations", position: seal.chain_seq, hash: seal.hash, signedAt: new Date(seal.signed_at).toISOString() };
      expect(verifyStatement(key, statement, seal.signature)).toBe(true);
      expect(verifyStatement(key, { ...statement, hash: hashes[0].hash }, seal.signature)).toBe(false);
    }
    // Nothing to seal, nothing signed.
    expect(await sealChain(t.db, { table: "hook_invocations" })).toEqual({ sealed: 0, busy: false });
    expect((await rows("select 1 from chain_seals")).length).toBe(2);
  });

  test("chain_seals is append-only: UPDATE, DELETE, TRUNCATE and a head naming no sealed row are refused", async () => {
    const before = await rows("select * from chain_seals order by id");
    await expect(t.execute("update chain_seals set hash = repeat('0', 64)")).rejects.toThrow(APPEND_ONLY);
    await expect(t.execute("update chain_seals set signed_at = now()")).rejects.toThrow(APPEND_ONLY);
    await expect(t.execute("delete from chain_seals")).rejects.toThrow(APPEND_ONLY);
    await expect(t.execute("truncate chain_seals")).rejects.toThrow(APPEND_ONLY);
    for (const forged of [
      `select 'hook_invocations', 99, repeat('0', 64), now(), 'k', 's'`,
      `select 'hook_invocations', 1, repeat('0', 64), now(), 'k', 's'`,
      `select 'users', 1, hash, now(), 'k', 's' from ${linkedRows("hook_invocations")} where chain_seq = 1`,
    ]) {
      await expect(t.execute(`insert into chain_seals (table_name, chain_seq, hash, signed_at, key_id, signature) ${forged}`), forged).rejects.toThrow(APPEND_ONLY);
    }
    expect(await rows("select * from chain_seals order by id")).toEqual(before);
  });
});

describe("a bundle verified offline by the real CLI", () => {
  let doomed: string;
  let good: Line[];
  let goodFile: string;

  beforeAll(async () => {
    // Retention takes the four old rows: an anchor at 4 (signed); the head at 2 goes with its rows,
    // the head at 4 stays and vouches for the anchor.
    expect(await deleteLedgerDaysBefore(t.db, { before: midnight(-1) })).toMatchObject({ deleted: 4, anchor: { position: 4 } });
    expect((await rows<{ chain_seq: number }>("select chain_seq::int as chain_seq from chain_seals")).map((s) => s.chain_seq)).toEqual([4]);

    // Rows of two runs interleaved with values that are hard to hash alike, sealed in three batches;
    // then one run is deleted: its rows become two signed gaps, one of them taking a head's position.
    doomed = await finishedRun("doomed");
    const kept = await finishedRun("kept");
    await ledger({ runId: kept, reason: "déjà vu 🚀 שלום \u2028 \"q\" \\", approval: { z: [1e21, 0.1, -0, 1e-7, null], a: { "😀": 1, "\uffff": 2, é: 3 } }, durationMs: 0.30000000000000004 });
    await ledger({ runId: doomed, reason: "d1" });
    await sealChain(t.db, { table: "hook_invocations" });
    await ledger({ runId: kept, reason: "k2", approval: JSON.parse('{"__proto__": {"x": 1}, "b": [{}], "a": []}'), durationMs: 1e-300, exitCode: -1 });
    await ledger({ runId: doomed, reason: "d2" });
    await ledger({ runId: doomed, reason: "d3" });
    await sealChain(t.db, { table: "hook_invocations" });
    for (const i of [1, 2, 3, 4, 5]) await ledger({ runId: i % 2 ? kept : null, reason: `tail ${i}`, stdout: `out ${"x".repeat(i * 10)}` });
    await sealChain(t.db, { table: "hook_invocations" });
    const res = await callRoute(runRoute.DELETE, { method: "DELETE", path: `/api/v1/runs/${doomed}`, params: { id: doomed }, token: projectAdminToken });
    expect(res.status).toBe(204);
    const gaps = await rows<{ first_seq: number; last_seq: number; prev_hash: string; signature: string }>(
      "select first_seq::int as first_seq, last_seq::int as last_seq, prev_hash, signature from chain_gaps order by first_seq",
    );
    expect(gaps.map((g) => [g.first_seq, g.last_seq])).toEqual([
      [6, 6],
      [8, 9],
    ]);
    expect(gaps.every((g) => g.signature && g.prev_hash)).toBe(true);
    expect((await rows<{ chain_seq: number }>("select chain_seq::int as chain_seq from chain_seals order by chain_seq")).map((s) => s.chain_seq)).toEqual([4, 6, 9, 14]);

    const download = await downloadBundle();
    expect(download.status).toBe(200);
    expect(download.type).toMatch(/^application\/x-ndjson/);
    good = parse(download.text);
    goodFile = writeBundle(download.text);
  });

  test("the bundle holds the header with the key, the signed anchor, rows, gaps and heads by position, and an end", () => {
    expect(good[0]).toMatchObject({ type: "bundle", format: "hookplane-chain-bundle/1", table: "hook_invocations", keys: [ledgerSigningKey().publicKey] });
    expect(good.map((l) => `${l.type}:${l.position ?? l.firstPosition ?? ""}`)).toEqual([
      "bundle:",
      "anchor:4",
      "seal:4",
      "row:5",
      "gap:6",
      "seal:6",
      "row:7",
      "gap:8",
      "seal:9",
      "row:10",
      "row:11",
      "row:12",
      "row:13",
      "row:14",
      "seal:14",
      "end:",
    ]);
    expect(good.at(-1)).toMatchObject({ type: "end", rows: 7, gaps: 2, seals: 4, head: { position: 14 } });
    const row = good.find((l) => l.type === "row" && l.position === 5)!;
    expect(row.content).toMatchObject({ approval: { z: [1e21, 0.1, 0, 1e-7, null] }, duration_ms: 0.30000000000000004 });
    expect(row.content).not.toHaveProperty("project_id");
  });

  test("verifies: exit 0 with the instance's published key; without a key it says the key inside the bundle was used", async () => {
    const withKey = await verifyFile(goodFile);
    expect(withKey.code, withKey.stderr).toBe(0);
    expect(withKey.stdout).toContain("hook_invocations bundle: intact");
    expect(withKey.stdout).toContain("7 rows, starting after retention at #4");
    expect(withKey.stdout).toContain("3 rows of 2 deleted runs' gaps stepped over");
    expect(withKey.stdout).toContain("4 signed heads verified; the newest: #14");
    expect(withKey.stdout).toContain(`signatures checked against the key you gave (${ledgerSigningKey().keyId})`);

    const inside = await cli(["audit", "verify", "--bundle", goodFile]);
    expect(inside.code).toBe(0);
    expect(inside.stdout).toContain("signatures checked against the key inside the bundle");

    const json = await verifyFile(goodFile, "--json");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, table: "hook_invocations", rows: 7, gaps: 2, removedRows: 3, seals: 4, keysCheckedAgainst: "given", signedHead: { position: 14 } });
    // The raw key as base64url works as well as the well-known document.
    expect((await cli(["audit", "verify", "--bundle", goodFile, "--public-key", ledgerSigningKey().publicKey.x])).code).toBe(0);
  });

  test("the audit log's bundle verifies too", async () => {
    const audit = await downloadBundle("audit_log");
    expect(audit.status).toBe(200);
    const lines = parse(audit.text);
    expect(lines.filter((l) => l.type === "row").length).toBeGreaterThan(0);
    const out = await verifyFile(writeBundle(audit.text));
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toContain("audit_log bundle: intact");
  });

  const rowAt = (lines: Line[], position: number) => lines.findIndex((l) => l.type === "row" && l.position === position);
  const idAt = (position: number) => (good[rowAt(good, position)].content as { id: number }).id;
  const clone = () => structuredClone(good);

  test("a row's content changed: exit 1 naming that row (position, id) and both hashes", async () => {
    const lines = clone();
    (lines[rowAt(lines, 11)].content as Record<string, unknown>).verdict = "block";
    const out = await verifyFile(writeBundle(lines));
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(`hook_invocations bundle: BROKEN at row id ${idAt(11)}, position 11: its content does not match its hash`);
    expect(out.stdout).toMatch(/expected hash [0-9a-f]{64}\n {2}stored hash {3}[0-9a-f]{64}/);
    const json = JSON.parse((await verifyFile(writeBundle(lines), "--json")).stdout);
    expect(json).toMatchObject({ ok: false, firstBroken: { table: "hook_invocations", position: 11, id: idAt(11) } });
  });

  test("a row changed and every hash after it recomputed: the signed head after it does not match", async () => {
    const lines = clone();
    let previous = "";
    for (const line of lines) {
      if (line.type === "gap") previous = line.hash as string;
      if (line.type !== "row") continue;
      if (line.position === 11) (line.content as Record<string, unknown>).reason = "nothing to see";
      if ((line.position as number) >= 11) line.hash = chainHash(previous, line.content);
      previous = line.hash as string;
    }
    const out = await verifyFile(writeBundle(lines));
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(`BROKEN at row id ${idAt(14)}, position 14: the signed head at position 14`);
    expect(out.stdout).toContain("a row at positions 10–14 was changed and the hashes after it recomputed since it was signed");
  });

  test("a row dropped, rows reordered: named at the right position", async () => {
    const dropped = clone();
    dropped.splice(rowAt(dropped, 12), 1);
    const out = await verifyFile(writeBundle(dropped));
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(`BROKEN at row id ${idAt(13)}, position 13: the row at position 12 is missing`);

    const reordered = clone();
    const [a, b] = [rowAt(reordered, 11), rowAt(reordered, 12)];
    [reordered[a], reordered[b]] = [reordered[b], reordered[a]];
    const swapped = await verifyFile(writeBundle(reordered));
    expect(swapped.code).toBe(1);
    expect(swapped.stdout).toContain(`BROKEN at row id ${idAt(12)}, position 12: the row at position 11 is missing`);

    // The newest rows cut off, their signed head kept: the head says the chain reached further.
    const cut = clone().filter((l) => !(l.type === "row" && (l.position as number) >= 13));
    const short = await verifyFile(writeBundle(cut));
    expect(short.code).toBe(1);
    expect(short.stdout).toContain("BROKEN at position 14: the signed head at position 14");
    expect(short.stdout).toContain("the rows at positions 13–14 are not in the bundle: rows were removed");
  });

  test("a head's hash changed, a head signed by another key, a gap or anchor forged: exit 1 at that position", async () => {
    const forger = chainSigningKeyFromSeed(randomBytes(32));
    const changedHead = clone();
    changedHead.find((l) => l.type === "seal" && l.position === 9)!.hash = "f".repeat(64);
    const out = await verifyFile(writeBundle(changedHead));
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/BROKEN at position 9: the signed head at position 9 \(signed at [^)]+\) does not verify/);

    const otherKey = clone().map((l) => (l.type === "seal" && l.position === 9 ? resign(l, "hook_invocations", forger) : l));
    const other = await verifyFile(writeBundle(otherKey));
    expect(other.code).toBe(1);
    expect(other.stdout).toContain(`BROKEN at position 9: the signed head at position 9`);
    expect(other.stdout).toContain(`was signed with key ${forger.keyId}, which is not the key you gave`);

    // A row hidden behind an invented gap: unsigned, or signed by someone else.
    const hidden = clone();
    const at = rowAt(hidden, 11);
    const invented: Line = { type: "gap", firstPosition: 11, lastPosition: 11, previousHash: hidden[at - 1].hash, hash: hidden[at].hash, runId: doomed, keyId: null, signature: null };
    hidden.splice(at, 1, invented);
    hidden[hidden.length - 1] = { ...hidden.at(-1)!, rows: 6, gaps: 3 };
    const unsigned = await verifyFile(writeBundle(hidden));
    expect(unsigned.code).toBe(1);
    expect(unsigned.stdout).toContain("BROKEN at position 11: the gap at positions 11–11");
    expect(unsigned.stdout).toContain("is not signed");
    // --trust-unsigned takes such a gap (as one from before signing existed) and says so; never an unsigned head.
    const trusting = await verifyFile(writeBundle(hidden), "--trust-unsigned");
    expect(trusting.code).toBe(0);
    expect(trusting.stdout).toContain("taken on trust (--trust-unsigned): the gap at positions 11–11");
    const unsignedHead = clone().map((l) => (l.type === "seal" && l.position === 14 ? { ...l, signature: null } : l));
    const headOut = await verifyFile(writeBundle(unsignedHead), "--trust-unsigned");
    expect(headOut.code).toBe(1);
    expect(headOut.stdout).toContain("BROKEN at row id");
    expect(headOut.stdout).toMatch(/position 14: the signed head at position 14 \(signed at [^)]+\) carries no signature/);
    hidden.splice(at, 1, resign(invented, "hook_invocations", forger));
    const foreign = await verifyFile(writeBundle(hidden));
    expect(foreign.code).toBe(1);
    expect(foreign.stdout).toContain(`was signed with key ${forger.keyId}`);

    // The oldest rows cut off behind an anchor moved forward.
    const moved = clone();
    moved.splice(1, 4, { ...moved[1], position: 5, hash: moved[3].hash });
    const anchor = await verifyFile(writeBundle(moved));
    expect(anchor.code).toBe(1);
    expect(anchor.stdout).toContain("BROKEN at position 5: the retention anchor at position 5 does not verify");
  });

  test("a bundle re-signed throughout by a forger's key passes only against its own key: --public-key tells", async () => {
    const forger = chainSigningKeyFromSeed(randomBytes(32));
    const forged = clone().map((l) => {
      if (l.type === "bundle") return { ...l, keys: [forger.publicKey] };
      if (l.type === "row" && l.position === 11) (l.content as Record<string, unknown>).verdict = "block";
      return ["seal", "gap", "anchor"].includes(l.type) ? resign(l, "hook_invocations", forger) : l;
    });
    let previous = "";
    for (const line of forged) {
      if (line.type === "gap" || line.type === "anchor") previous = line.hash as string;
      if (line.type === "row") {
        line.hash = chainHash(previous, line.content);
        previous = line.hash as string;
      }
      if (line.type === "seal") Object.assign(line, resign({ ...line, hash: previous }, "hook_invocations", forger));
      if (line.type === "end") (line.head as Record<string, unknown>).hash = previous;
    }
    // Gaps now link from recomputed hashes: re-sign them with their new neighbours' hashes.
    for (let i = 0; i < forged.length; i++) {
      if (forged[i].type === "gap") forged[i] = resign({ ...forged[i], previousHash: forged[i - 1].hash }, "hook_invocations", forger);
    }
    const file = writeBundle(forged);
    const inside = await cli(["audit", "verify", "--bundle", file]);
    expect(inside.code, inside.stdout).toBe(0);
    expect(inside.stdout).toContain(`signatures checked against the key inside the bundle (${forger.keyId})`);
    const pinned = await verifyFile(file);
    expect(pinned.code).toBe(1);
    expect(pinned.stdout).toContain(`the bundle carries key ${forger.keyId}, not the key you gave (${ledgerSigningKey().keyId})`);
  });

  test("what cannot be checked exits 2: no file, not a bundle, cut short, an export that failed, a key that is none", async () => {
    const cases: [string, RegExp][] = [
      [path.join(dir, "missing.ndjson"), /no such file/],
      [writeBundle("hello\n"), /line 1 is not JSON/],
      [writeBundle(serialize([{ type: "row" }])), /not a Hookplane chain bundle/],
      [writeBundle(serialize([{ ...good[0], format: "hookplane-chain-bundle/9" }])), /this hookplane reads hookplane-chain-bundle\/1/],
      [writeBundle(serialize(good.slice(0, -1))), /the bundle ends early/],
      [writeBundle(serialize([...good.slice(0, 5), { type: "x", error: { code: "export_failed", message: "the export stopped after 3 rows" } } as Line])), /the export stopped/],
    ];
    for (const [file, problem] of cases) {
      const out = await verifyFile(file);
      expect(out.code, file).toBe(2);
      expect(out.stderr).toMatch(problem);
      expect(out.stdout).toBe("");
    }
    const badKey = await cli(["audit", "verify", "--bundle", goodFile, "--public-key", "not-a-key"]);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain("--public-key: no Ed25519 public key");
  });

  test("only an instance admin downloads a bundle (it carries every project's rows); no one signed in gets 401", async () => {
    expect((await downloadBundle("hook_invocations", { authorization: `Bearer ${projectAdminToken}` })).status).toBe(403);
    expect((await downloadBundle("hook_invocations", {})).status).toBe(401);
    expect((await downloadBundle("users")).status).toBe(422);
  });
});

describe("the server's check reads the signed heads too", () => {
  test("the verify report carries the newest signed head, valid, and the key it was checked with", async () => {
    const res = await callRoute(verifyRoute.GET, { token: projectAdminToken, path: "/api/v1/audit/verify" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ok: true,
      signingKey: ledgerSigningKey().publicKey,
      ledger: { signedHead: { position: 14, keyId: ledgerSigningKey().keyId, valid: true }, signatures: { heads: 4, unsigned: 0 } },
      audit: { signedHead: { valid: true } },
    });
  });

  test("rows changed and rehashed by a superuser (which the links alone cannot show) break at the first signed head after them", async () => {
    const target = (await rows<{ id: number }>(`select id::int as id from ${linkedRows("hook_invocations")} where chain_seq = 11`))[0];
    const saved = await rows<{ chain_seq: number; hash: string }>(`select chain_seq::int as chain_seq, hash from ${linkedRows("hook_invocations")} where chain_seq >= 11 order by chain_seq`);
    await asSuperuser(t.db, "hook_invocations", sql`update hook_invocations set verdict = 'block' where id = ${target.id}`);
    // Recompute each hash from the changed row on, as someone covering their tracks would.
    for (;;) {
      const report = await verifyChain(t.db, { table: "hook_invocations" });
      if (!report.firstBroken?.problem.startsWith("its content does not match")) break;
      await asSuperuser(t.db, "chain_links", sql`update chain_links set hash = ${report.firstBroken.expectedHash} where table_name = 'hook_invocations' and chain_seq = ${report.firstBroken.position}`);
    }
    const report = await verifyChain(t.db, { table: "hook_invocations" });
    expect(report.firstBroken).toMatchObject({ position: 14, expectedHash: saved.at(-1)!.hash });
    expect(report.firstBroken!.problem).toContain("a row at positions 10–14 was changed and the hashes after it recomputed since it was signed");
    expect(report.signedHead).toMatchObject({ position: 14, valid: false });

    // Put back: intact again.
    await asSuperuser(t.db, "hook_invocations", sql`update hook_invocations set verdict = 'allow' where id = ${target.id}`);
    for (const row of saved) await asSuperuser(t.db, "chain_links", sql`update chain_links set hash = ${row.hash} where table_name = 'hook_invocations' and chain_seq = ${row.chain_seq}`);
    expect((await verifyChain(t.db, { table: "hook_invocations" })).firstBroken).toBeUndefined();
  });

  test("the newest rows removed by a superuser: their signed head shows it", async () => {
    const newest = "id in (select row_id from chain_links where table_name = 'hook_invocations' and chain_seq >= 13)";
    const saved = await rows<{ row: string }>(`select to_jsonb(h)::text as row from hook_invocations h where ${newest} order by id`);
    await asSuperuser(t.db, "hook_invocations", sql`delete from hook_invocations where ${sql.raw(newest)}`);
    const report = await verifyChain(t.db, { table: "hook_invocations" });
    expect(report.firstBroken).toMatchObject({ id: null, position: 14 });
    expect(report.firstBroken!.problem).toContain("says the chain reached it, but the rows at positions 13–14 are missing: the newest rows were removed");
    for (const row of saved) {
      await asSuperuser(t.db, "hook_invocations", sql`insert into hook_invocations select * from jsonb_populate_record(null::hook_invocations, ${row.row}::jsonb)`);
    }
    expect((await verifyChain(t.db, { table: "hook_invocations" })).firstBroken).toBeUndefined();
  });

  test("records signed under another secret key are named, not taken", async () => {
    const restore = setEnv({ HOOKPLANE_SECRET_KEY: randomBytes(32).toString("base64") });
    forgetSecretBox();
    try {
      const report = await verifyChain(t.db, { table: "hook_invocations" });
      expect(report.firstBroken?.problem).toMatch(/^the retention anchor at position 4 was signed with key [0-9a-f]{16}, not this instance's ledger key [0-9a-f]{16} \(do all its processes share HOOKPLANE_SECRET_KEY\?\)$/);
    } finally {
      restore();
      forgetSecretBox();
    }
  });

  test("rows sealed before signing existed get a head once a check finds them intact, and a bundle covers them", async () => {
    const u = await createTestDatabase();
    try {
      for (const i of [1, 2, 3]) await u.db.insert(hookInvocations).values({ event: "tool.pre", hookKey: "old", matched: true, reason: `before signing ${i}` });
      await sealChain(u.db, { table: "hook_invocations" });
      // As an upgraded instance has them: sealed, no head (the seal's head removed with its trigger off).
      await asSuperuser(u.db, "chain_seals", sql`delete from chain_seals`);
      expect((await verifyChain(u.db, { table: "hook_invocations" })).signedHead).toBeUndefined();
      installDatabase(u);
      const admin = await addPerson(u.db, { email: "root@example.com", instanceAdmin: true, role: "admin" });
      const session = newSecretToken("");
      await createSession(u.db, { tokenHash: hashSecretToken(session), userId: admin.id, ttlMs: 3600_000 });
      const download = await downloadBundle("hook_invocations", { cookie: `hp_session=${session}` });
      expect(parse(download.text).map((l) => `${l.type}:${l.position ?? ""}`)).toEqual(["bundle:", "row:1", "row:2", "row:3", "seal:3", "end:"]);
      expect((await verifyFile(writeBundle(download.text))).code).toBe(0);
      const res = await callRoute(verifyRoute.GET, { token: (await addToken(u.db, { role: "admin", name: "a", userId: admin.id })).token, path: "/api/v1/audit/verify" });
      expect(res.body.ledger).toMatchObject({ rows: 3, signedHead: { position: 3, valid: true }, signatures: { heads: 1 } });
    } finally {
      installDatabase(t);
      await u.drop();
    }
  });
});
