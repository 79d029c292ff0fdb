/**
 * npm run bench:otel — what exporting runs as OpenTelemetry traces costs, end to end: batches of
 * runs on the real run queue (in this process, as the web server works them) with trace export
 * off, then on (OTLP/HTTP protobuf to a collector stand-in in a child process that answers 200
 * and counts what it gets, so its CPU is not ours), alternating, on a fresh database (in-memory
 * PGlite, or a new database on the PostgreSQL of DATABASE_URL).
 *
 * Each run is a scripted agent of BENCH_TURNS list_files turns with a tool.pre guard (its denyIf
 * never matches) and a tool.post log hook bound: per turn a chat span, a tool span and two hook
 * decisions. Figures: this process's CPU (process.cpuUsage: the workers, the recorder, the
 * exporter, and with PGlite the database too) per recorded event, with export off and on, and
 * the difference per event and per span; on the "on" batches the spans are flushed before the
 * clock stops, so their export is counted. Batches alternate and the figure is the median of the
 * pairs' differences, so a machine that others load shifts both sides of a pair alike.
 * Knobs: BENCH_RUNS (runs per batch, 100), BENCH_TURNS (5), BENCH_ROUNDS (off/on pairs, 6).
 */
import "./quiet-logs";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { createHook } from "@/db/queries/hooks";
import { seedPricesIfEmpty } from "@/db/queries/prices";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { PUBLISHED_PRICES } from "@/lib/features/costs/published-prices";
import { workerConcurrency } from "@/lib/process/background";
import { startRunWork } from "@/lib/process/run-work";
import { installRunQueue } from "@/lib/features/runs/queue/run-queue-registry";
import { startRun } from "@/lib/features/runs/run-service";
import { runTraceIdle } from "@/lib/features/runs/telemetry/run-trace-recorder";
import type { Principal } from "@/lib/platform/auth/roles";
import { logger } from "@/lib/platform/logger";
import { loadConfig } from "@/lib/platform/config/config";
import { otelConfigOf } from "@/lib/platform/telemetry/otel-config";
import { createTraceExport, installTraceExport, traceExport } from "@/lib/platform/telemetry/trace-export";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { runBench, stop } from "./bench-support";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const TURNS = Number(process.env.BENCH_TURNS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const operator: Principal = { kind: "user", id: "bench", label: "bench@example.com", role: "operator", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: false };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The collector stand-in: takes OTLP/HTTP posts, answers 200, says on `GET /stats` what it got. */
const SINK = `
const http = require("node:http");
let requests = 0, bytes = 0;
const server = http.createServer((req, res) => {
  if (req.method === "GET") return res.end(JSON.stringify({ requests, bytes }));
  req.on("data", (c) => (bytes += c.length));
  req.on("end", () => { requests++; res.writeHead(200, { "content-type": "application/x-protobuf" }).end(); });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.on("SIGTERM", () => process.exit(0));
`;

async function startSink(): Promise<{ child: ChildProcess; url: string; stats(): Promise<{ requests: number; bytes: number }> }> {
  const child = spawn(process.execPath, ["-e", SINK], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));
  const url = `http://127.0.0.1:${port}`;
  return { child, url, stats: async () => (await fetch(`${url}/stats`)).json() as Promise<{ requests: number; bytes: number }> };
}

async function addAgent(t: TestDatabase) {
  const script = [
    ...Array.from({ length: TURNS }, (_, i) => ({ text: `step ${i + 1}`, toolCalls: [{ name: "list_files", input: {} }], usage: { inputTokens: 200, outputTokens: 20 } })),
    { text: "done", usage: { inputTokens: 200, outputTokens: 5 } },
  ];
  const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "bench-otel", tools: ["list_files"], maxTurns: TURNS + 5, script }) }))!;
  const scope = `agent:${agent.id}`;
  const hooks = [
    { id: "guard", event: "tool.pre", matcher: "list_files", scope, action: { type: "block", reason: "production paths are off-limits", denyIf: "/srv/prod" } },
    { id: "log", event: "tool.post", scope, action: { type: "log", message: "list_files ran" } },
  ];
  for (const hook of hooks) await createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse(hook), actor: "bench" });
  return agent;
}

async function count(t: TestDatabase, sql: string, params: unknown[]): Promise<number> {
  return Number(((await t.execute(sql, params)).rows[0] as { n: number }).n);
}

/** One batch: RUNS runs started and waited for; CPU microseconds per event of this process. */
let batches = 0;
/** Statements this process sent to the database (the run records' writes among them). */
let statements = 0;
async function batch(t: TestDatabase, agentId: string, label: string) {
  const tag = `${label}-${++batches}`;
  const statementsBefore = statements;
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < RUNS; i++) await startRun(t.db, operator, { agent: agentId, prompt: `${tag} ${i}`, source: "bench" });
  while ((await count(t, "select count(*)::int as n from runs where status <> 'finished'", [])) > 0) await sleep(20);
  if (traceExport()) {
    await runTraceIdle();
    await traceExport()!.flush(30_000);
  }
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  const sent = statements - statementsBefore;
  const events = await count(t, "select coalesce(sum(last_seq), 0)::int as n from runs where prompt like $1", [`${tag} %`]);
  const cpuUs = used.user + used.system;
  return { label, events, cpuUs, usPerEvent: cpuUs / events, seconds, statementsPerEvent: sent / events };
}

async function main() {
  const t = await createTestDatabase({ onStatement: () => void statements++ });
  installDatabase(t);
  await seedPricesIfEmpty(t.db, { projectId: DEFAULT_PROJECT_ID, prices: PUBLISHED_PRICES });
  const workspacesDir = mkdtempSync(path.join(tmpdir(), "hookplane-bench-otel-"));
  const queue = await startRunWork(t, { concurrency: workerConcurrency(), workspacesDir });
  installRunQueue(queue);
  const sink = await startSink();
  const exporter = createTraceExport(otelConfigOf(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }))!, { warn: console.warn, info: () => {} });
  try {
    const agent = await addAgent(t);
    console.log(`bench:otel on ${t.kind}: ${ROUNDS} x (off, on) batches of ${RUNS} runs, ${TURNS} tool turns each`);
    // A warm-up batch: the first runs pay for JIT and caches, off or on.
    await batch(t, agent.id, "warm-up");
    const results: Awaited<ReturnType<typeof batch>>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const on of [false, true]) {
        installTraceExport(on ? exporter : undefined);
        const r = await batch(t, agent.id, on ? "on" : "off");
        results.push(r);
        console.log(`  export ${r.label.padEnd(3)}: ${r.events} events in ${r.seconds.toFixed(1)} s, CPU ${(r.cpuUs / 1e6).toFixed(2)} s = ${r.usPerEvent.toFixed(1)} µs/event, ${r.statementsPerEvent.toFixed(2)} statements/event`);
      }
    }
    installTraceExport(undefined);
    const median = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const mid = sorted.length / 2;
      return sorted.length % 2 ? sorted[Math.floor(mid)] : (sorted[mid - 1] + sorted[mid]) / 2;
    };
    const offs = results.filter((r) => r.label === "off").map((r) => r.usPerEvent);
    const ons = results.filter((r) => r.label === "on").map((r) => r.usPerEvent);
    const off = median(offs);
    const on = off + median(ons.map((v, i) => v - offs[i]));
    const stats = await sink.stats();
    const onEvents = results.filter((r) => r.label === "on").reduce((n, r) => n + r.events, 0);
    // Per run: the run span, TURNS + 1 chat spans and TURNS tool spans.
    const spans = ROUNDS * RUNS * (2 + 2 * TURNS);
    console.log(`  CPU per event: off ${off.toFixed(1)} µs (median of ${ROUNDS}), on ${on.toFixed(1)} µs: +${(on - off).toFixed(1)} µs/event (+${(((on - off) / off) * 100).toFixed(1)} %, the median of the ${ROUNDS} pairs' differences; lowest batches off ${Math.min(...offs).toFixed(1)}, on ${Math.min(...ons).toFixed(1)})`);
    console.log(`  the collector got ${stats.requests} requests, ${(stats.bytes / 1024).toFixed(0)} KiB for ${spans} spans of ${onEvents} events: ${(stats.bytes / spans).toFixed(0)} bytes/span, +${(((on - off) * onEvents) / spans).toFixed(1)} µs CPU/span`);
  } finally {
    await exporter.shutdown(5_000);
    await queue.stop();
    installRunQueue(undefined);
    await stop(sink.child);
    // Dropping the benchmark's database cuts the pool's last connections: not news.
    logger.level = "error";
    await t.drop();
    rmSync(workspacesDir, { recursive: true, force: true });
  }
}

runBench(main);
