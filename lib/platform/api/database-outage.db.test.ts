/**
 * A database outage as the API and a run see it: the server reaches PostgreSQL through a TCP proxy
 * this test controls. Blackholed (a partition: nothing answers) and then closed (refused), an API
 * call answers 503 `database_unavailable` with Retry-After within 5 s (issue 19) instead of
 * hanging, /api/health says the database is down, and once the proxy passes bytes again the API
 * answers and the run that was working finishes, each step recorded once, with no restart.
 * PostgreSQL only: PGlite runs inside the process and has no connection to take away.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { closeDatabase, installDatabase, openDatabase, type DbHandle } from "@/db/client";
import { agents, DEFAULT_PROJECT_ID } from "@/db/schema";
import { createRun } from "@/db/queries/runs";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { startTcpProxy, type TcpProxy } from "@/test/tcp-proxy";
import { GET as health } from "@/app/api/health/route";
import { apiRoute } from "@/lib/platform/api/route";
import { addAgent, expectWellFormedStream, runEvents, waitForRun } from "@/test/run-harness";
import type { RunQueue } from "@/lib/features/runs/queue/run-queue";
import { startRunWork } from "@/lib/process/run-work";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setEnv } from "@/test/config-env";

/** A route that reads the database, through the wrapper every route uses. */
const listAgents = apiRoute({ role: null }, async ({ db }) => ({ agents: (await db.select().from(agents)).length }));
const call = () => listAgents(new Request("http://hookplane.test/api/v1/agents"));

/** The bound: an API call in an outage answers within 5 s. */
const ANSWER_WITHIN_MS = 5_000;

async function timed(work: () => Promise<Response>): Promise<{ response: Response; ms: number }> {
  const started = performance.now();
  const response = await work();
  return { response, ms: performance.now() - started };
}

describe.runIf(Boolean(process.env.DATABASE_URL))("database outage", () => {
  let t: TestDatabase;
  let proxy: TcpProxy;
  let handle: DbHandle;
  let queue: RunQueue;
  let workspacesDir: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    const target = new URL(t.databaseUrl!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    setEnv({ HOOKPLANE_DB_PROBE_MS: "250" });
    setEnv({ HOOKPLANE_DB_PROBE_TIMEOUT_MS: "1000" });
    handle = await openDatabase({ databaseUrl: proxy.proxied(t.databaseUrl!) });
    installDatabase(handle);
    workspacesDir = mkdtempSync(path.join(tmpdir(), "hookplane-outage-"));
    queue = await startRunWork(handle, { concurrency: 2, leaseMs: 3_000, sweepMs: 200, workspacesDir });
  });

  afterAll(async () => {
    await proxy?.restore();
    await queue?.stop();
    await closeDatabase();
    await proxy?.stop();
    await t?.drop();
    setEnv({ HOOKPLANE_DB_PROBE_MS: undefined });
    setEnv({ HOOKPLANE_DB_PROBE_TIMEOUT_MS: undefined });
    if (workspacesDir) rmSync(workspacesDir, { recursive: true, force: true });
  });

  test("blackholed, then closed: 503 with Retry-After within 5 s, health says down; it heals and the run finishes", async () => {
    expect((await call()).status).toBe(200);
    expect((await health()).status).toBe(200);

    // Enough steps that the run is still working when the database goes away.
    const turns = 300;
    const script = [...Array.from({ length: turns }, (_, i) => ({ text: `step ${i}`, toolCalls: [{ name: "list_files", input: {} }] })), { text: "done" }];
    const agent = await addAgent(t, { name: "outlasts-outages", tools: ["list_files"], script, maxTurns: 1000 });
    const run = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "go", source: "test" });
    await queue.enqueue(run.id);
    await expect.poll(async () => (await runEvents(t, run.id)).filter((e) => e.type === "tool.post").length, { timeout: 30_000, interval: 20 }).toBeGreaterThan(2);

    for (const outage of ["blackhole", "close"] as const) {
      if (outage === "blackhole") proxy.blackhole();
      else await proxy.close();
      const { response, ms } = await timed(call);
      expect(response.status, outage).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      expect(await response.json()).toEqual({ error: { code: "database_unavailable", message: expect.any(String) } });
      expect(ms, `${outage}: answered in ${Math.round(ms)} ms`).toBeLessThan(ANSWER_WITHIN_MS);

      const down = await timed(health);
      expect(down.response.status).toBe(503);
      expect(await down.response.json()).toMatchObject({ ok: false, db: "down", error: { code: "database_unavailable" } });
      expect(down.ms).toBeLessThan(ANSWER_WITHIN_MS);

      await proxy.restore();
      // Healed without a restart: the probe sees the database back and the API answers again.
      // Both answer again (a probe still under way at the restore may mark it down once more).
      await expect.poll(async () => [(await call()).status, (await health()).status], { timeout: 20_000, interval: 100 }).toEqual([200, 200]);
    }

    const done = await waitForRun(t, run.id, (r) => r.status === "finished", 90_000);
    expect(done).toMatchObject({ outcome: "completed", response: "done" });
    const events = await runEvents(t, run.id);
    expectWellFormedStream(events);
    expect(events.filter((e) => e.type === "tool.post")).toHaveLength(turns);
    expect(events.filter((e) => e.type === "session.start")).toHaveLength(1);
  }, 180_000);
});
