/**
 * npm run bench:events — the live event path against one PostgreSQL (DATABASE_URL, default the
 * local test server), all in one run:
 *   1. sustained events/s through the real path (append + NOTIFY + the server's WebSocket
 *      delivery to a subscriber) beside raw multi-row INSERT into the same table;
 *   2. emit-to-client latency p50/p99 at 1,000 events/s;
 *   3. approval decision-to-tool-start latency p50/p95 (a worker process, the decision via API);
 *   4. peak resident memory of the server while streaming and of a worker with 20 concurrent runs.
 * Needs a production build (`npm run build`), since the server is the real server.ts.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import WebSocket from "ws";
import { createAgent } from "@/db/queries/agents";
import { createHook } from "@/db/queries/hooks";
import { createRun } from "@/db/queries/runs";
import { DEFAULT_PROJECT_ID, runEvents } from "@/db/schema";
import type { TestDatabase } from "@/test/database";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { createRunEventWriter } from "@/lib/features/runs/run-event-writer";
import { startRunWork } from "@/lib/process/run-work";
import { installRunQueue } from "@/lib/features/runs/queue/run-queue-registry";
import { peakRssMb, runServerBench, startProcess, startServer, stop, summarize, waitForHealth } from "./bench-support";
import { freePort } from "@/test/free-port";

const THROUGHPUT_EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 5);
const APPROVALS = Number(process.env.BENCH_APPROVALS ?? 20);

const fmt = (n: number, d = 1) => n.toFixed(d);
const zeroTotals = { inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0 };

async function main(t: TestDatabase, dataDir: string) {
  // The runs' shell steps run (sandboxed), in workspaces beside the data folder, not in it.
  const workspacesDir = `${dataDir}-workspaces`;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = startServer(t, port, dataDir);
  let worker: ReturnType<typeof startProcess> | undefined;
  try {
    await waitForHealth(base);
    const setup = await (await fetch(`${base}/api/v1/setup`, { method: "POST", body: JSON.stringify({ email: "bench@example.com", password: "benchmark!" }) })).json();
    const token: string = setup.token;
    const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "bench" }) }))!;

    // A subscriber on the server's WebSocket, counting and timing what it receives.
    const subscribe = async (runId: string, onEvent: (seq: number, data: Record<string, unknown>) => void) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/api/ws?token=${token}`);
      await new Promise((r) => ws.once("open", r));
      ws.on("message", (raw) => {
        const msg = JSON.parse(raw.toString());
        if (msg.type === "event") onEvent(msg.seq, msg.event.data);
      });
      ws.send(JSON.stringify({ type: "subscribe", topic: `run:${runId}`, after: 0 }));
      await new Promise((r) => setTimeout(r, 200));
      return ws;
    };

    // 1. Sustained throughput through the real path.
    const run1 = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "throughput", source: "bench" });
    let received = 0;
    let done: () => void = () => {};
    const allIn = new Promise<void>((r) => (done = r));
    const ws1 = await subscribe(run1.id, () => {
      if (++received === THROUGHPUT_EVENTS) done();
    });
    const writer = createRunEventWriter(t.db, { runId: run1.id, mode: "owner", lastSeq: 0, totals: zeroTotals, toolsUsed: [], blocked: false });
    const startedAt = performance.now();
    for (let i = 0; i < THROUGHPUT_EVENTS; i++) {
      writer.emit("tool.post", { toolName: "shell", output: `line ${i}`, isError: false, durationMs: 1 });
      if (i % 500 === 499) await writer.flush();
    }
    await writer.flush();
    await allIn;
    const realSeconds = (performance.now() - startedAt) / 1000;
    const realRate = THROUGHPUT_EVENTS / realSeconds;
    const serverPeakStreaming = peakRssMb(server.pid!);
    ws1.close();

    const run2 = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "raw", source: "bench" });
    const rawStarted = performance.now();
    for (let i = 0; i < THROUGHPUT_EVENTS; i += 500) {
      const rows = Array.from({ length: Math.min(500, THROUGHPUT_EVENTS - i) }, (_, j) => ({
        runId: run2.id,
        seq: i + j + 1,
        type: "tool.post",
        data: { toolName: "shell", output: `line ${i + j}`, isError: false, durationMs: 1 },
      }));
      await t.db.insert(runEvents).values(rows);
    }
    const rawRate = THROUGHPUT_EVENTS / ((performance.now() - rawStarted) / 1000);

    // 2. Latency at 1,000 events/s: 10 events every 10 ms, each stamped when emitted.
    const run3 = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "latency", source: "bench" });
    const latencies: number[] = [];
    const ws3 = await subscribe(run3.id, (_seq, data) => latencies.push(performance.now() - Number(data.sentAt)));
    const writer3 = createRunEventWriter(t.db, { runId: run3.id, mode: "owner", lastSeq: 0, totals: zeroTotals, toolsUsed: [], blocked: false });
    const ticks = RATE_SECONDS * 100;
    const rateStart = performance.now();
    for (let tick = 0; tick < ticks; tick++) {
      // Not a tool's payload: a probe the subscriber times (the writer's type is only a label here).
      for (let j = 0; j < 10; j++) writer3.emit<string>("tool.post", { sentAt: performance.now(), i: tick * 10 + j });
      const next = rateStart + (tick + 1) * 10;
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    }
    await writer3.flush();
    await new Promise((r) => setTimeout(r, 500));
    ws3.close();
    const latency = summarize(latencies);

    // These runs were written to directly; mark them done so the worker's sweeper leaves them be.
    await t.execute(`update runs set status = 'finished', outcome = 'completed' where id in ('${run1.id}', '${run2.id}', '${run3.id}')`);

    // 3 and 4. A worker process: approvals resumed through the API, and 20 concurrent runs.
    worker = startProcess(["worker.ts"], {
      DATABASE_URL: t.databaseUrl,
      HOOKPLANE_DATA_DIR: dataDir,
      HOOKPLANE_WORKER_CONCURRENCY: "20",
      HOOKPLANE_ALLOW_CODE_EXECUTION: "1",
      HOOKPLANE_WORKSPACES_DIR: workspacesDir,
    });
    const queue = await startRunWork(t, { concurrency: 0 });
    installRunQueue(queue);
    const asker = (await createAgent(
      t.db,
      {
        projectId: DEFAULT_PROJECT_ID,
        spec: agentSpecSchema.parse({
          name: "asker",
          tools: ["shell"],
          script: [{ toolCalls: [{ name: "shell", input: { command: "date +%s%3N > started.txt" } }] }, { text: "done" }],
        }),
      },
    ))!;
    await createHook(t.db, {
      projectId: DEFAULT_PROJECT_ID,
      spec: hookSpecSchema.parse({ id: "ask", event: "tool.pre", scope: `agent:${asker.id}`, action: { type: "approve", timeoutMs: 600_000 } }),
      actor: "bench",
    });
    const auth = { authorization: `Bearer ${token}` };
    const approvalLatencies: number[] = [];
    for (let i = 0; i < APPROVALS; i++) {
      const { id } = await (await fetch(`${base}/api/v1/runs`, { method: "POST", headers: auth, body: JSON.stringify({ agent: "asker", prompt: `go ${i}` }) })).json();
      let approvalId: string | undefined;
      while (!approvalId) {
        const { items } = await (await fetch(`${base}/api/v1/approvals?status=pending`, { headers: auth })).json();
        approvalId = items.find((a: { runId: string }) => a.runId === id)?.id;
        if (!approvalId) await new Promise((r) => setTimeout(r, 20));
      }
      const decidedAt = Date.now();
      await fetch(`${base}/api/v1/approvals/${approvalId}/decision`, { method: "POST", headers: auth, body: JSON.stringify({ decision: "approve" }) });
      const file = path.join(workspacesDir, id, "started.txt");
      while (!existsSync(file) || readFileSync(file, "utf8").trim() === "") await new Promise((r) => setTimeout(r, 5));
      approvalLatencies.push(Number(readFileSync(file, "utf8").trim()) - decidedAt);
    }
    const approvals = summarize(approvalLatencies);

    const sleeper = (await createAgent(t.db, {
      projectId: DEFAULT_PROJECT_ID,
      spec: agentSpecSchema.parse({
        name: "sleeper",
        tools: ["shell"],
        script: [
          { text: "working", toolCalls: [{ name: "shell", input: { command: "sleep 1" } }], usage: { inputTokens: 500, outputTokens: 100 } },
          { text: "still working", toolCalls: [{ name: "shell", input: { command: "sleep 1" } }], usage: { inputTokens: 700, outputTokens: 100 } },
          { text: "done", usage: { inputTokens: 900, outputTokens: 50 } },
        ],
      }),
    }))!;
    const runIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      const run = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: sleeper.id, prompt: `concurrent ${i}`, source: "bench" });
      runIds.push(run.id);
      await queue.enqueue(run.id);
    }
    const concurrentStart = Date.now();
    for (;;) {
      const { rows } = await t.execute(`select count(*)::int as n from runs where agent_id = '${sleeper.id}' and status = 'finished'`);
      if (Number(rows[0].n) === 20) break;
      if (Date.now() - concurrentStart > 120_000) throw new Error("concurrent runs did not finish");
      await new Promise((r) => setTimeout(r, 100));
    }
    const workerPeak = peakRssMb(worker.pid!);
    const serverPeak = peakRssMb(server.pid!);
    await queue.stop();

    console.log("\nbench:events — PostgreSQL, one run\n");
    console.log(`real path (append + NOTIFY + WebSocket): ${fmt(realRate, 0)} events/s (${THROUGHPUT_EVENTS} events in ${fmt(realSeconds, 2)} s)`);
    console.log(`raw multi-row INSERT:                    ${fmt(rawRate, 0)} events/s`);
    console.log(`ratio real/raw:                          ${fmt(realRate / rawRate, 2)}   (target ≥ 0.5, and ≥ 5,000 events/s)`);
    console.log(`emit-to-client latency at 1,000 ev/s:    p50 ${fmt(latency.p50)} ms, p99 ${fmt(latency.p99)} ms over ${latency.n} events (target p99 < 100 ms)`);
    console.log(`approval decision → tool start:          p50 ${fmt(approvals.p50, 0)} ms, p95 ${fmt(approvals.p95, 0)} ms over ${approvals.n} (target p95 < 100 ms)`);
    console.log(`server peak RSS:                         ${serverPeakStreaming} MB while streaming, ${serverPeak} MB at the end (target < 400 MB)`);
    console.log(`worker peak RSS, 20 concurrent runs:     ${workerPeak} MB (target < 300 MB)`);
  } finally {
    if (worker) await stop(worker);
    await stop(server);
    rmSync(workspacesDir, { recursive: true, force: true });
  }
}

runServerBench("bench:events", main);
