/**
 * A worker process killed mid-run: another worker picks the run up when the lease lapses and
 * finishes it from the checkpoint, without re-running the tool call that already finished, with
 * every seq present once. Separate worker processes need PostgreSQL.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createRun } from "@/db/queries/runs";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { INTERRUPTED_OUTPUT } from "@/lib/core/agent/loop";
import { addAgent, expectWellFormedStream, runEvents, waitForRun } from "@/test/run-harness";
import type { RunQueue } from "./run-queue";
import { startRunWork } from "@/lib/process/run-work";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

describe.runIf(Boolean(process.env.DATABASE_URL))("worker crash", () => {
  let t: TestDatabase;
  let dataDir: string;
  let workspacesDir: string;
  let queue: RunQueue;
  const workers: ChildProcess[] = [];

  const startWorker = () => {
    const child = spawn(process.execPath, ["--import", "tsx", "worker.ts"], {
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
    queue = await startRunWork(t, { concurrency: 0, workspacesDir });
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
    const run = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "work", source: "test" });
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

  /** Each scenario starts with no worker left from the one before. */
  const killAllWorkers = async () => {
    await Promise.all(
      workers.splice(0).map((w) => (w.exitCode !== null || w.signalCode !== null ? undefined : new Promise((r) => (w.once("exit", r), w.kill("SIGKILL"))))),
    );
  };

  /** A run whose one shell step appends a line, half a second into a 1.5 s step. */
  const appendingRun = async (name: string) => {
    const agent = await addAgent(t, {
      name,
      tools: ["shell"],
      script: [{ toolCalls: [{ name: "shell", input: { command: "sleep 0.5; echo line >> log.txt; sleep 1; echo done" } }] }, { text: "finished" }],
    });
    const run = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "work", source: "test" });
    await queue.enqueue(run.id);
    await expect.poll(async () => (await runEvents(t, run.id)).some((e) => e.type === "tool.pre"), { timeout: 30_000, interval: 50 }).toBe(true);
    return run;
  };
  const linesOf = (runId: string) => {
    const file = path.join(workspacesDir, runId, "log.txt");
    return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
  };

  test("kill -9 during a side-effecting shell step: its line is there at most once and the record says interrupted", async () => {
    for (const delayMs of [200, 900]) {
      await killAllWorkers();
      const worker = startWorker();
      const run = await appendingRun(`killed-${delayMs}`);
      // Before and after the step's echo: either way it must not run again.
      await new Promise((r) => setTimeout(r, delayMs));
      worker.kill("SIGKILL");
      startWorker();
      const done = await waitForRun(t, run.id, (r) => r.status === "finished", 60_000);
      expect(done).toMatchObject({ outcome: "completed", response: "finished" });
      expect(linesOf(run.id)).toBeLessThanOrEqual(1);
      const events = await runEvents(t, run.id);
      expectWellFormedStream(events);
      const posts = events.filter((e) => e.type === "tool.post");
      expect(posts.map((e) => e.data)).toEqual([expect.objectContaining({ output: INTERRUPTED_OUTPUT, isError: true })]);
      expect(events.filter((e) => e.type === "loop.tool_interrupted").map((e) => e.data)).toEqual([expect.objectContaining({ retried: false })]);
    }
  }, 180_000);

  test("kill -9 during a command hook: it ran at most once, and its one ledger row says interrupted", async () => {
    await killAllWorkers();
    const worker = startWorker();
    const agent = await addAgent(
      t,
      { name: "hooked", tools: ["list_files"], script: [{ toolCalls: [{ name: "list_files", input: {} }] }, { text: "finished" }] },
      [{ id: "deploy", event: "tool.pre", onFailure: "continue", timeoutMs: 10_000, action: { type: "command", command: "sleep 0.3; echo deployed >> hook.txt; sleep 2" } }],
    );
    const run = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "work", source: "test" });
    await queue.enqueue(run.id);
    // The hook's line is written: the worker dies while its command still runs.
    await expect.poll(() => existsSync(path.join(workspacesDir, run.id, "hook.txt")), { timeout: 30_000, interval: 50 }).toBe(true);
    worker.kill("SIGKILL");
    startWorker();
    const done = await waitForRun(t, run.id, (r) => r.status === "finished", 60_000);
    expect(done).toMatchObject({ outcome: "completed", response: "finished" });
    expect(readFileSync(path.join(workspacesDir, run.id, "hook.txt"), "utf8")).toBe("deployed\n");
    const { rows } = await t.execute("select hook_key, failed, verdict, reason from hook_invocations where run_id = $1 order by id", [run.id]);
    expect(rows).toEqual([{ hook_key: "deploy", failed: true, verdict: "allow", reason: "interrupted: the previous attempt may or may not have completed (onFailure: continue)" }]);
    const events = await runEvents(t, run.id);
    expectWellFormedStream(events);
    expect(events.filter((e) => e.type === "tool.pre")).toHaveLength(1);
    // The tool itself ran once, after the hook's verdict.
    expect(events.filter((e) => e.type === "tool.post").map((e) => e.data.isError)).toEqual([false]);
  }, 120_000);

  test("SIGTERM during a shell step: the step completes within the grace period and is recorded once", async () => {
    await killAllWorkers();
    const worker = startWorker();
    const run = await appendingRun("terminated");
    await new Promise((r) => setTimeout(r, 200));
    worker.kill("SIGTERM");
    const exited = await new Promise((resolve) => worker.once("exit", (code, signal) => resolve({ code, signal })));
    expect(exited).toEqual({ code: 0, signal: null });
    // The step finished and its result was checkpointed before the worker let go of the run
    // (its tool.post fires when the run resumes).
    const stopped = await waitForRun(t, run.id, () => true);
    const calls = Object.values((stopped.checkpoint as { stage: { toolCalls: Record<string, { result?: unknown }> } }).stage.toolCalls);
    expect(calls.map((c) => c.result)).toEqual([{ output: "done\n", isError: false }]);
    startWorker();
    const done = await waitForRun(t, run.id, (r) => r.status === "finished", 60_000);
    expect(done).toMatchObject({ outcome: "completed", response: "finished" });
    expect(linesOf(run.id)).toBe(1);
    const events = await runEvents(t, run.id);
    expectWellFormedStream(events);
    expect(events.filter((e) => e.type === "tool.post").map((e) => e.data)).toEqual([expect.objectContaining({ output: "done\n", isError: false })]);
    expect(events.filter((e) => e.type === "loop.tool_interrupted")).toHaveLength(0);
    expect(events.filter((e) => e.type === "loop.resumed")).toHaveLength(1);
  }, 120_000);
});
