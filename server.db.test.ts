/**
 * The real server process, started as an operator starts it (`npm start` on a built tree): no
 * build step when the build is current, SIGTERM sent to the npm process reaches the server, a
 * SIGTERM in the middle of writes loses nothing that was acknowledged, runs in flight resume
 * after the restart, and a restart keeps every agent. Needs `npm run build` first (npm test
 * builds before vitest).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { freePort } from "@/test/free-port";
import { assertBuilt } from "@/test/real-server";

let port: number;
let base: string;
let dataDir: string;
/** The operator's code hooks: one written in TypeScript, which the compiled server loads through tsx. */
let hooksDir: string;
/** Made by the first test's setup; the second works on the same database after a restart. */
let adminToken: string;
let pgDatabase: TestDatabase | undefined;

let output = "";

/** `npm start`, as in the README: the process a container runtime or systemd signals is npm's. */
function startServer(): ChildProcess {
  // npm start sets production itself; vitest's NODE_ENV=test must not leak into the server.
  const { NODE_ENV: _, ...inherited } = process.env;
  const env = { ...inherited, PORT: String(port), LOG_LEVEL: "info", HOOKPLANE_ALLOW_CODE_EXECUTION: "1", HOOKPLANE_HOOKS_DIR: hooksDir } as Record<string, string | undefined> as NodeJS.ProcessEnv;
  if (pgDatabase) env.DATABASE_URL = pgDatabase.databaseUrl;
  else {
    delete env.DATABASE_URL;
    env.HOOKPLANE_DATA_DIR = dataDir;
  }
  const child = spawn("npm", ["start"], { env, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return child;
}

async function waitHealthy(): Promise<{ db: string }> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${base}/api/health`);
      if (res.ok) return res.json();
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("server did not become healthy");
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

beforeAll(async () => {
  assertBuilt();
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  dataDir = mkdtempSync(path.join(tmpdir(), "hookplane-restart-"));
  hooksDir = mkdtempSync(path.join(tmpdir(), "hookplane-ts-hooks-"));
  writeFileSync(
    path.join(hooksDir, "typed.ts"),
    'const hook: { type: string; id: string; execute: () => Promise<void> } = { type: "after_thread_created", id: "typed_hook", execute: async () => {} };\nexport default hook;\n',
  );
  if (process.env.DATABASE_URL) {
    pgDatabase = await createTestDatabase();
  }
});

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(hooksDir, { recursive: true, force: true });
  await pgDatabase?.drop();
});

test("SIGTERM during writes loses nothing acknowledged, and a restart keeps every agent", async () => {
  let server = startServer();
  const health = await waitHealthy();
  expect(health.db).toBe(pgDatabase ? "postgres" : "pglite");
  // The build is current: npm start served it without building.
  expect(output).not.toContain("hookplane: building");
  // The compiled server loaded the operator's TypeScript hook.
  expect(output).toMatch(/"hooks":\["typed_hook"\]/);
  // Next started on the build's config: SWC, which transpiles next.config.ts, never loaded (24 MB
  // resident: lib/process/next-built-config.ts), and the dashboard is served all the same.
  const [node] = readFileSync(`/proc/${server.pid}/task/${server.pid}/children`, "utf8").trim().split(/\s+/);
  expect(readFileSync(`/proc/${node}/cmdline`, "utf8")).toContain("scripts/start.mjs");
  expect(readFileSync(`/proc/${node}/maps`, "utf8")).not.toContain("next-swc");
  const signIn = await fetch(`${base}/sign-in`);
  expect(signIn.status).toBe(200);
  expect(await signIn.text()).toContain("<html");

  const setup = await fetch(`${base}/api/v1/setup`, { method: "POST", body: JSON.stringify({ email: "a@example.com", password: "password123" }) });
  adminToken = (await setup.json()).token;
  const auth = { authorization: `Bearer ${adminToken}` };

  const acknowledged: string[] = [];
  let sentTerm = false;
  const serverExit = exited(server);
  const writes = Array.from({ length: 60 }, (_, i) => i).map(async (i) => {
    await new Promise((r) => setTimeout(r, i * 5));
    const name = `agent-${i}`;
    try {
      const res = await fetch(`${base}/api/v1/agents`, { method: "POST", headers: auth, body: JSON.stringify({ name }) });
      if (res.status === 201) {
        acknowledged.push(name);
        if (acknowledged.length === 5 && !sentTerm) {
          sentTerm = true;
          server.kill("SIGTERM");
        }
      }
    } catch {
      // refused or reset after shutdown began: not acknowledged, so nothing is owed
    }
  });
  await Promise.all(writes);
  expect(sentTerm).toBe(true);
  expect(await serverExit).toBe(0);
  expect(output).toContain('"msg":"closed"');
  expect(acknowledged.length).toBeGreaterThanOrEqual(5);

  server = startServer();
  await waitHealthy();
  try {
    const res = await fetch(`${base}/api/v1/agents?limit=200`, { headers: auth });
    const names: string[] = (await res.json()).items.map((a: { name: string }) => a.name);
    for (const name of acknowledged) expect(names).toContain(name);
    // The demo agents were seeded once, not again on restart.
    expect(names.filter((n) => n === "price-checker")).toHaveLength(1);
  } finally {
    const stopped = exited(server);
    server.kill("SIGTERM");
    expect(await stopped).toBe(0);
  }
}, 120_000);

test("SIGTERM to npm start with runs in flight: they resume after the restart and each is recorded once", async () => {
  let server = startServer();
  await waitHealthy();
  const auth = { authorization: `Bearer ${adminToken}` };
  const TURNS = 30;
  const script = [...Array.from({ length: TURNS }, () => ({ toolCalls: [{ name: "list_files", input: {} }] })), { text: "done" }];
  const agent = await fetch(`${base}/api/v1/agents`, { method: "POST", headers: auth, body: JSON.stringify({ name: "long-lister", model: "scripted", tools: ["list_files"], maxTurns: 100, script }) });
  expect(agent.status).toBe(201);
  const runIds: string[] = [];
  for (let i = 0; i < 8; i++) {
    const res = await fetch(`${base}/api/v1/runs`, { method: "POST", headers: auth, body: JSON.stringify({ agent: "long-lister", prompt: `list ${i}` }) });
    expect(res.status).toBe(202);
    runIds.push((await res.json()).id);
  }
  // Stop while some run is mid-way.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events = await (await fetch(`${base}/api/v1/runs/${runIds[0]}/events`, { headers: auth })).json();
    if (events.items.length >= 10 || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const stopped = exited(server);
  server.kill("SIGTERM");
  expect(await stopped).toBe(0);
  const before = await runStatusesAfterStop(runIds);
  expect(before.some((status) => status !== "finished")).toBe(true);

  server = startServer();
  await waitHealthy();
  try {
    for (const id of runIds) {
      const run = await waitFinished(id, auth);
      expect(run.outcome).toBe("completed");
      const { items } = await (await fetch(`${base}/api/v1/runs/${id}/events?limit=5000`, { headers: auth })).json();
      const seqs = items.map((e: { seq: number }) => e.seq);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
      const count = (type: string) => items.filter((e: { type: string }) => e.type === type).length;
      expect([count("session.start"), count("session.end")]).toEqual([1, 1]);
      expect([count("tool.pre"), count("tool.post")]).toEqual([TURNS, TURNS]);
      // Every tool call is recorded once: no call id twice among tool.pre or tool.post.
      for (const type of ["tool.pre", "tool.post"]) {
        const ids = items.filter((e: { type: string }) => e.type === type).map((e: { data: { toolCallId: string } }) => e.data.toolCallId);
        expect(new Set(ids).size).toBe(TURNS);
      }
    }
  } finally {
    const done = exited(server);
    server.kill("SIGTERM");
    expect(await done).toBe(0);
  }

  async function runStatusesAfterStop(ids: string[]): Promise<string[]> {
    // Read straight from the database the server left behind, through one short-lived server-less
    // client (an embedded database folder is opened by one instance at a time).
    const { openDatabase } = await import("@/db/client");
    const handle = pgDatabase ? await openDatabase({ databaseUrl: pgDatabase.databaseUrl }) : await openDatabase({ dataDir: path.join(dataDir, "pgdata") });
    try {
      const { getRun } = await import("@/db/queries/runs");
      const { DEFAULT_PROJECT_ID } = await import("@/db/schema");
      const statuses: string[] = [];
      for (const id of ids) statuses.push((await getRun(handle.db, { projectId: DEFAULT_PROJECT_ID, id }))?.status ?? "missing");
      return statuses;
    } finally {
      await handle.close();
    }
  }
}, 180_000);

test("npm start with a bad value exits 1 before serving, naming the variable", async () => {
  const { NODE_ENV: _, ...inherited } = process.env;
  const env = { ...inherited, PORT: String(port), HOOKPLANE_DATA_DIR: dataDir, HOOKPLANE_DB_POOL: "abc" } as Record<string, string | undefined> as NodeJS.ProcessEnv;
  const child = spawn("npm", ["start"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  expect(await exited(child)).toBe(1);
  expect(stderr).toContain('hookplane: the configuration is not valid:\n  HOOKPLANE_DB_POOL: expected a positive integer, got "abc"\n');
  await expect(fetch(`${base}/api/health`)).rejects.toThrow();
}, 60_000);

test("npm start on a port something else holds exits 1 naming it, and the holder keeps its port", async () => {
  const holder = createServer((_req, res) => res.end("holder"));
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  const heldPort = (holder.address() as AddressInfo).port;
  try {
    const { NODE_ENV: _, ...inherited } = process.env;
    const env = { ...inherited, PORT: String(heldPort), HOSTNAME: "127.0.0.1", LOG_LEVEL: "error", HOOKPLANE_DATA_DIR: dataDir } as Record<string, string | undefined>;
    if (pgDatabase) env.DATABASE_URL = pgDatabase.databaseUrl;
    else delete env.DATABASE_URL;
    const child = spawn("npm", ["start"], { env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    expect(await exited(child)).toBe(1);
    expect(output).toContain(`127.0.0.1:${heldPort} is already in use: stop what listens there, or set PORT to a free port`);
    expect(await (await fetch(`http://127.0.0.1:${heldPort}/`)).text()).toBe("holder");
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
}, 90_000);

async function waitFinished(id: string, headers: Record<string, string>): Promise<{ status: string; outcome?: string }> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const run = await (await fetch(`${base}/api/v1/runs/${id}`, { headers })).json();
    if (run.status === "finished" || Date.now() > deadline) return run;
    await new Promise((r) => setTimeout(r, 200));
  }
}
