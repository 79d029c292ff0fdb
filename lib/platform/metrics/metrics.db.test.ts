/**
 * GET /metrics after real runs: the numbers are the runs, events, hook verdicts and approvals the
 * database holds, exactly; the cluster's gauges follow a run waiting for a person; the endpoint
 * answers the metrics token and admins only; a worker's own port answers the token only and
 * leaves the cluster's gauges to the web process.
 */
import { EventEmitter } from "node:events";
import type { AddressInfo } from "node:net";
import type { WebSocket } from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeStatement } from "@/db/client";
import { listApprovals } from "@/db/queries/approvals";
import * as metricsRoute from "@/app/metrics/route";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";
import { startRun } from "@/lib/features/runs/run-service";
import { issueApiToken, setupFirstAdmin } from "@/lib/platform/auth/account-service";
import { StreamHub } from "@/lib/platform/stream/hub";
import { callRoute } from "@/test/api-client";
import { setEnv } from "@/test/config-env";
import { addAgent, createRunHarness, operator, waitForRun, type RunHarness } from "@/test/run-harness";
import { startChainSealer } from "@/lib/features/audit/chain-sealer";
import { startMetricsListener } from "./metrics-listener";
import { resetMetrics } from "./metrics-registry";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

const METRICS_TOKEN = "scrape-token-0123456789abcdef";
let h: RunHarness;
let admin: string;
let operatorToken: string;
let viewer: string;
const restoreEnv = setEnv({ HOOKPLANE_METRICS_TOKEN: METRICS_TOKEN });

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus's text format, the lines that carry a value. */
function parse(text: string): Sample[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

/** The sum of the samples of `name` whose labels include `labels`; undefined when there is none. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return matching.length ? matching.reduce((sum, s) => sum + s.value, 0) : undefined;
}

async function scrape(headers: Record<string, string> = { authorization: `Bearer ${METRICS_TOKEN}` }) {
  const response = await metricsRoute.GET(new Request("http://localhost/metrics", { headers }));
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get("content-type"), text, samples: response.status === 200 ? parse(text) : [] };
}

beforeAll(async () => {
  resetMetrics();
  h = await createRunHarness();
  admin = (await setupFirstAdmin(h.t.db, { email: "admin@example.com", password: "long enough" })).token;
  operatorToken = (await issueApiToken(h.t.db, { name: "ops", role: "operator", actor: "test" })).token;
  viewer = (await issueApiToken(h.t.db, { name: "view", role: "viewer", actor: "test" })).token;
});
afterAll(async () => {
  await h.close();
  restoreEnv();
});

const write = (path: string) => ({ text: "writing", toolCalls: [{ name: "write_file", input: { path, content: "x" } }] });

describe("after real runs", () => {
  const runIds: string[] = [];

  beforeAll(async () => {
    const writer = await addAgent(h.t, { name: "writer", tools: ["write_file"], script: [write("notes.txt"), write("secrets/forbidden.txt"), { text: "done" }] }, [
      { id: "no-forbidden", event: "tool.pre", matcher: "write_file", action: { type: "block", reason: "not there", denyIf: "forbidden" } },
      { id: "log-end", event: "session.end", action: { type: "log" } },
    ]);
    const skipped = await addAgent(h.t, { name: "never-starts", script: [{ text: "unreachable" }] }, [
      { id: "closed-today", event: "session.start", action: { type: "block", reason: "closed today" } },
    ]);
    for (const agent of [writer, writer, skipped]) {
      const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "go" });
      runIds.push(run.id);
      await waitForRun(h.t, run.id, (r) => r.status === "finished");
    }
  });

  it("counts what the database holds: runs by outcome, every stored event by type, each hook's verdicts", async () => {
    const { status, contentType, samples } = await scrape();
    expect(status).toBe(200);
    expect(contentType).toBe("text/plain; version=0.0.4; charset=utf-8");

    const outcomes = await query<{ outcome: string; n: number }>("select outcome, count(*)::int as n from runs group by outcome");
    expect(Object.fromEntries(outcomes.map((r) => [r.outcome, Number(r.n)]))).toEqual({ completed: 2, skipped: 1 });
    expect(total(samples, "hookplane_runs_started_total")).toBe(3);
    expect(total(samples, "hookplane_runs_finished_total", { outcome: "completed" })).toBe(2);
    expect(total(samples, "hookplane_runs_finished_total", { outcome: "skipped" })).toBe(1);
    expect(total(samples, "hookplane_run_duration_seconds_count", { outcome: "completed" })).toBe(2);
    expect(total(samples, "hookplane_run_duration_seconds_count", { outcome: "skipped" })).toBe(1);

    const events = await query<{ type: string; n: number }>("select type, count(*)::int as n from run_events group by type");
    expect(events.length).toBeGreaterThan(5);
    for (const { type, n } of events) expect(total(samples, "hookplane_run_events_written_total", { type }), type).toBe(Number(n));
    expect(total(samples, "hookplane_run_events_written_total")).toBe(events.reduce((sum, e) => sum + Number(e.n), 0));

    const verdicts = await query<{ hook: string; verdict: string | null; failed: boolean; n: number }>(
      "select hook_key as hook, verdict, failed, count(*)::int as n from hook_invocations where matched group by hook_key, verdict, failed",
    );
    expect(verdicts.find((v) => v.hook === "no-forbidden" && v.verdict === "block")?.n).toBe(2);
    for (const v of verdicts) {
      expect(total(samples, "hookplane_hook_verdicts_total", { hook: v.hook, verdict: v.verdict ?? "none", failed: String(v.failed) }), v.hook).toBe(Number(v.n));
    }
    expect(total(samples, "hookplane_hook_verdicts_total")).toBe(verdicts.reduce((sum, v) => sum + Number(v.n), 0));
    // Every tool.pre of the two writer runs went through the guard's chain: 2 writes each.
    expect(total(samples, "hookplane_hook_dispatch_duration_seconds_count", { event: "tool.pre" })).toBe(4);
    expect(total(samples, "hookplane_hook_duration_seconds_count", { action: "block" })).toBe(5);

    // Nothing left to do: the cluster's gauges, read from the database.
    expect(total(samples, "hookplane_runs", { status: "queued" })).toBe(0);
    expect(total(samples, "hookplane_runs", { status: "running" })).toBe(0);
    expect(total(samples, "hookplane_approvals_pending")).toBe(0);
    expect(total(samples, "hookplane_queue_jobs", { state: "created" })).toBe(0);
    // Every in-process series says which process it is from; the cluster's do not.
    expect(samples.find((s) => s.name === "hookplane_runs_started_total")?.labels.process).toBe("web");
    expect(samples.find((s) => s.name === "hookplane_approvals_pending")?.labels.process).toBeUndefined();
  });

  it("follows a run that waits for a person: pending, then the decision's latency", async () => {
    const asks = await addAgent(h.t, { name: "asks-first", tools: ["write_file"], script: [write("ask.txt"), { text: "done" }] }, [
      { id: "ask", event: "tool.pre", matcher: "write_file", action: { type: "approve", timeoutMs: 60_000, onTimeout: "deny" } },
    ]);
    const run = await startRun(h.t.db, operator, { agent: asks.name, prompt: "go" });
    await waitForRun(h.t, run.id, (r) => r.status === "waiting_approval");
    const waiting = (await scrape()).samples;
    expect(total(waiting, "hookplane_approvals_pending")).toBe(1);
    expect(total(waiting, "hookplane_runs", { status: "waiting_approval" })).toBe(1);
    expect(total(waiting, "hookplane_approval_decision_seconds_count")).toBeUndefined();

    const [pending] = await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 1 });
    const decided = await callRoute(decisionRoute.POST, { method: "POST", token: operatorToken, params: { id: pending.id }, body: { decision: "approve" } });
    expect(decided.status).toBe(200);
    await waitForRun(h.t, run.id, (r) => r.status === "finished");

    const after = (await scrape()).samples;
    expect(total(after, "hookplane_approvals_pending")).toBe(0);
    expect(total(after, "hookplane_approval_decision_seconds_count", { decision: "approved" })).toBe(1);
    const waited = (new Date(decided.body.decidedAt).getTime() - new Date(decided.body.requestedAt).getTime()) / 1000;
    expect(total(after, "hookplane_approval_decision_seconds_sum", { decision: "approved" })).toBeCloseTo(waited, 3);
    expect(total(after, "hookplane_runs_finished_total", { outcome: "completed" })).toBe(3);
    const [{ n }] = await query<{ n: number }>("select count(*)::int as n from run_events");
    expect(total(after, "hookplane_run_events_written_total")).toBe(Number(n));
  });
});

describe("the hash chains", () => {
  it("the backlog the sealer has not linked yet, then the periodic sealer's rows and seals", async () => {
    const count = async (text: string) => Number((await query<{ n: number }>(text))[0].n);
    const ledgerRows = await count("select count(*)::int as n from hook_invocations");
    const auditRows = await count("select count(*)::int as n from audit_log");
    expect(ledgerRows).toBeGreaterThan(5);
    expect(auditRows).toBeGreaterThan(0);

    // No sealer runs in this harness: every row is still waiting, the oldest since the first run.
    const before = (await scrape()).samples;
    const [{ age }] = await query<{ age: number }>("select extract(epoch from now() - min(created_at))::float8 as age from hook_invocations");
    expect(total(before, "hookplane_chain_unsealed_rows", { table: "hook_invocations" })).toBe(ledgerRows);
    expect(total(before, "hookplane_chain_unsealed_rows", { table: "audit_log" })).toBe(auditRows);
    const waited = total(before, "hookplane_chain_oldest_unsealed_seconds", { table: "hook_invocations" })!;
    expect(waited).toBeGreaterThan(0);
    expect(Math.abs(waited - Number(age))).toBeLessThan(2);
    expect(total(before, "hookplane_chain_rows_sealed_total")).toBeUndefined();
    expect(before.find((s) => s.name === "hookplane_chain_unsealed_rows")?.labels.process).toBeUndefined();

    const sealer = startChainSealer(h.t.db, { intervalMs: 20 });
    try {
      await expect
        .poll(async () => {
          const samples = (await scrape()).samples;
          return ["hook_invocations", "audit_log"].map((table) => total(samples, "hookplane_chain_unsealed_rows", { table }));
        }, { timeout: 10_000 })
        .toEqual([0, 0]);
    } finally {
      await sealer.stop();
    }
    const after = (await scrape()).samples;
    // What the sealer counted is what the chains now hold, row for row.
    expect(await count("select count(*)::int as n from chain_links where table_name = 'hook_invocations'")).toBe(ledgerRows);
    expect(await count("select count(*)::int as n from chain_links where table_name = 'audit_log'")).toBe(auditRows);
    expect(total(after, "hookplane_chain_rows_sealed_total", { table: "hook_invocations" })).toBe(ledgerRows);
    expect(total(after, "hookplane_chain_rows_sealed_total", { table: "audit_log" })).toBe(auditRows);
    expect(after.find((s) => s.name === "hookplane_chain_rows_sealed_total")?.labels.process).toBe("web");
    for (const table of ["hook_invocations", "audit_log"]) {
      expect(total(after, "hookplane_chain_seal_duration_seconds_count", { table })).toBeGreaterThanOrEqual(1);
      expect(total(after, "hookplane_chain_seal_duration_seconds_sum", { table })).toBeGreaterThan(0);
      expect(total(after, "hookplane_chain_oldest_unsealed_seconds", { table })).toBe(0);
    }
  });
});

describe("what the process holds", () => {
  it("WebSocket subscribers of the stream hub, and the database's connections", async () => {
    const hub = new StreamHub(h.t);
    await hub.start();
    const sockets = [fakeSocket(), fakeSocket()];
    for (const socket of sockets) hub.attach(socket, { kind: "user", id: "u", label: "u", role: "viewer", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: true });
    expect(total((await scrape()).samples, "hookplane_websocket_subscribers")).toBe(2);
    sockets[0].close();
    expect(total((await scrape()).samples, "hookplane_websocket_subscribers")).toBe(1);
    await hub.stop();
    expect(total((await scrape()).samples, "hookplane_websocket_subscribers")).toBe(0);

    const samples = (await scrape()).samples;
    const pool = h.t.poolStats();
    expect(total(samples, "hookplane_db_pool_max")).toBe(pool.max);
    expect(total(samples, "hookplane_db_pool_connections", { state: "total" })).toBeGreaterThanOrEqual(1);
    if (h.t.kind === "postgres") expect(total(samples, "hookplane_db_pool_connections", { state: "waiting" })).toBe(0);
    else expect(total(samples, "hookplane_db_pool_connections", { state: "idle" })).toBeUndefined();
  });
});

describe("who may scrape", () => {
  it("the metrics token and admins; no credential or a wrong one is 401, another role 403", async () => {
    expect((await scrape({})).status).toBe(401);
    expect((await scrape({ authorization: "Bearer scrape-token-0123456789abcdeX" })).status).toBe(401);
    expect((await scrape({ authorization: `Bearer ${METRICS_TOKEN} ` })).status).toBe(200);
    const viewerAnswer = await scrape({ authorization: `Bearer ${viewer}` });
    expect(viewerAnswer.status).toBe(403);
    expect(JSON.parse(viewerAnswer.text)).toMatchObject({ error: { code: "forbidden" } });
    expect(viewerAnswer.text).not.toContain("hookplane_");
    expect((await scrape({ authorization: `Bearer ${operatorToken}` })).status).toBe(403);
    expect((await scrape({ authorization: `Bearer ${admin}` })).status).toBe(200);
  });

  it("without HOOKPLANE_METRICS_TOKEN only admins: the old token opens nothing", async () => {
    setEnv({ HOOKPLANE_METRICS_TOKEN: undefined });
    try {
      expect((await scrape()).status).toBe(401);
      expect((await scrape({ authorization: `Bearer ${admin}` })).status).toBe(200);
    } finally {
      setEnv({ HOOKPLANE_METRICS_TOKEN: METRICS_TOKEN });
    }
  });

  it("a worker's metrics port: the token only, this process's metrics, not the cluster's", async () => {
    const listener = await startMetricsListener(h.t, { port: 0, host: "127.0.0.1", token: METRICS_TOKEN });
    try {
      const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      expect((await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${admin}` } })).status).toBe(401);
      expect((await fetch(`${base}/other`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(404);
      const answer = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(answer.status).toBe(200);
      const samples = parse(await answer.text());
      expect(total(samples, "hookplane_runs_started_total")).toBe(4);
      expect(total(samples, "hookplane_approvals_pending")).toBeUndefined();
    } finally {
      await new Promise((r) => listener.close(r));
    }
  });
});

function query<T>(text: string): Promise<T[]> {
  return executeStatement<T>(h.t.db, text, []);
}

function fakeSocket(): WebSocket {
  const socket = Object.assign(new EventEmitter(), { OPEN: 1, readyState: 1, send() {}, close: () => socket.emit("close") });
  return socket as unknown as WebSocket;
}
