/**
 * A worker process killed mid-run: another worker picks the run up when the lease lapses and
 * finishes it from the checkpoint, without re-running the tool call that already finished, with
 * every seq present once. Separate worker processes need PostgreSQL.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createRun } from "@/db/queries/runs";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addAgent, expectWellFormedStream, runEvents, waitForRun } from "@/test/run-harness";
import { startRunQueue, type RunQueue } from "./run-queue";

describe.runIf(Boolean(process.env.DATABASE_URL))("worker crash", () => {
  let t: TestDatabase;
  let dataDir: string;
  let workspacesDir: string;
  let queue: RunQueue;
  const workers: ChildProcess[] = [];

  const startWorker = () => {
    const child = spawn(process.execPath, ["--import", "tsx", "lib/features/runs/queue/worker-main.ts"], {
      env: {
        ...process.env,
        DATABASE_URL: t.databaseUrl,
        HOOKPLANE_DATA_DIR: dataDir,
        // Shell steps run (in the sandbox), in workspaces outside the data directory.
        HOOKPLANE_ALLOW_CODE_EXECUTION: "1",
        HOOKPLANE_WORKSPACES_DIR: workspacesDir,
        HOOKPLANE_LEASE_MS: "1500",
        HOOKPLANE_SWEEP_MS: "300",
        HOOKPLANE_WORKER_CONCURRENCY: "2",
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "inherit", "inherit"],
    });
    workers.push(child);
    return child;
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    installDatabase(t);
    dataDir = mkdtempSync(path.join(tmpdir(), "hookplane-crash-"));
    workspacesDir = mkdtempSync(path.join(tmpdir(), "hookplane-crash-workspaces-"));
    // This process only enqueues; the workers are separate processes.
    queue = await startRunQueue(t, { concurrency: 0, workspacesDir });
  });

  afterAll(async () => {
    for (const w of workers) w.kill("SIGKILL");
    await queue.stop();
    await t.drop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workspacesDir, { recursive: true, force: true });
  });

  test("the run finishes on another worker with each finished tool call run once", async () => {
    const agent = await addAgent(t, {
      name: "crash-survivor",
      tools: ["shell"],
      script: [
        { toolCalls: [{ name: "shell", input: { command: "echo one >> log.txt" } }] },
        { toolCalls: [{ name: "shell", input: { command: "sleep 4" } }] },
        { text: "all done" },
      ],
    });
    const first = startWorker();
    const run = await createRun(t.db, { agentId: agent.id, prompt: "work", source: "test" });
    await queue.enqueue(run.id);

    // Wait until the first tool call is recorded and the second is running, then kill the worker.
    await expect
      .poll(async () => (await runEvents(t, run.id)).filter((e) => e.type === "tool.pre").length, { timeout: 30_000, interval: 100 })
      .toBe(2);
    first.kill("SIGKILL");
    startWorker();

    const done = await waitForRun(t, run.id, (r) => r.status === "finished", 60_000);
    expect(done.outcome).toBe("completed");
    expect(done.response).toBe("all done");
    const log = readFileSync(path.join(workspacesDir, run.id, "log.txt"), "utf8");
    // The finished call did not run again. (The interrupted `sleep` ran again: it never finished.)
    expect(log).toBe("one\n");
    const events = await runEvents(t, run.id);
    expectWellFormedStream(events);
    expect(events.filter((e) => e.type === "session.start")).toHaveLength(1);
    expect(events.filter((e) => e.type === "tool.post").map((e) => e.data.output)).toHaveLength(2);
  }, 120_000);
});
