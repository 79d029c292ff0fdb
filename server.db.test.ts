/**
 * The real server process: restart keeps every agent, and a SIGTERM in the middle of writes
 * loses nothing that was acknowledged. Needs `next build` first (npm test builds before vitest).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/database";

const port = 3400 + Math.floor(Math.random() * 500);
const base = `http://127.0.0.1:${port}`;
let dataDir: string;
let pgDatabase: TestDatabase | undefined;

function startServer(): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), NODE_ENV: "production", LOG_LEVEL: "warn" };
  if (pgDatabase) env.DATABASE_URL = pgDatabase.databaseUrl;
  else {
    delete env.DATABASE_URL;
    env.HOOKPLANE_DATA_DIR = dataDir;
  }
  return spawn(process.execPath, ["--import", "tsx", "server.ts"], { env, stdio: ["ignore", "inherit", "inherit"] });
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
  if (!existsSync(path.join(process.env.NEXT_DIST_DIR ?? ".next", "BUILD_ID"))) throw new Error("run `next build` before this test (npm test does)");
  dataDir = mkdtempSync(path.join(tmpdir(), "hookplane-restart-"));
  if (process.env.DATABASE_URL) {
    pgDatabase = await createTestDatabase();
  }
});

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await pgDatabase?.drop();
});

test("SIGTERM during writes loses nothing acknowledged, and a restart keeps every agent", async () => {
  let server = startServer();
  const health = await waitHealthy();
  expect(health.db).toBe(pgDatabase ? "postgres" : "pglite");

  const setup = await fetch(`${base}/api/v1/setup`, { method: "POST", body: JSON.stringify({ email: "a@example.com", password: "password123" }) });
  const { token } = await setup.json();
  const auth = { authorization: `Bearer ${token}` };

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
