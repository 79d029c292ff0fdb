/**
 * npm run bench:ui — loads a run of 20,000 stored events in Chromium and prints the time until
 * the timeline is interactive (every event in, the last one on screen, the main thread answering
 * a frame) and the frame times while scrolling it top to bottom. Target: interactive < 1.5 s.
 * Then a live run (BENCH_UI_LIVE_STORED events stored, a hook ledger row per tool call) open in
 * the page while BENCH_UI_LIVE_BURSTS bursts of tool calls, each with its ledger row, are written
 * as a running agent would: the time from a burst's commit until the page holds its ledger rows,
 * and what the ledger cost the page in requests and bytes (it follows the ledger on the socket;
 * the run view used to fetch the whole ledger again after each burst, so that is shown beside).
 * Uses PostgreSQL (DATABASE_URL, default the local test server) so the events can be written
 * before the real server starts; needs `npm run build`.
 */
import path from "node:path";
import { chromium } from "@playwright/test";
import { createAgent } from "@/db/queries/agents";
import { appendRunEvents, appendRunRecords, type LedgerRowOfBatch, type NewRunEvent } from "@/db/queries/run-events";
import { createRun, finishRun } from "@/db/queries/runs";
import { createSession } from "@/db/queries/sessions";
import { addPerson } from "@/test/people";
import type { TestDatabase } from "@/test/database";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hashPassword } from "@/lib/platform/auth/password";
import { hashSecretToken, newSecretToken } from "@/lib/platform/auth/secret-token";
import { runServerBench, startServer, stop, summarize, waitForHealth } from "./bench-support";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { freePort } from "@/test/free-port";

const EVENTS = Number(process.env.BENCH_UI_EVENTS ?? 20_000);
const LIVE_STORED = Number(process.env.BENCH_UI_LIVE_STORED ?? 5_000);
const LIVE_BURSTS = Number(process.env.BENCH_UI_LIVE_BURSTS ?? 30);
/** Tool calls a burst writes (each a tool.pre with a guard's ledger row, and its tool.post). */
const BURST_CALLS = 5;
const fmt = (n: number) => n.toFixed(1);

/** A realistic mix: model turns, tool calls with pre/post (spans), reminders. */
function syntheticEvents(n: number): NewRunEvent[] {
  const events: NewRunEvent[] = [{ type: "session.start", data: { prompt: "benchmark" } }, { type: "user.prompt.submit", data: { prompt: "benchmark" } }];
  let turn = 0;
  while (events.length < n - 1) {
    turn++;
    events.push({ type: "model.pre", data: { turn, messageCount: turn * 3 } });
    events.push({ type: "model.post", data: { model: "scripted", text: `Turn ${turn}: reading the next file`, inputTokens: 400 + turn, outputTokens: 40, cachedTokens: 0, costUsd: 0.00048, stopReason: "tool_use", toolCallCount: 1 } });
    const id = `call_${turn}`;
    events.push({ type: "tool.pre", data: { toolName: "read_file", toolInput: { path: `src/file-${turn}.ts` }, toolCallId: id } });
    events.push({ type: "tool.post", data: { toolName: "read_file", toolInput: { path: `src/file-${turn}.ts` }, toolCallId: id, output: `export const value${turn} = ${turn};`, isError: false, durationMs: 2 } });
  }
  events.length = n - 1;
  events.push({ type: "session.end", data: { outcome: "completed", response: "done" } });
  return events;
}

/** The guard's ledger row of a tool.pre (the bench's one hook). */
function guardRow(runId: string, eventIndex: number): LedgerRowOfBatch {
  return {
    runId, projectId: DEFAULT_PROJECT_ID, eventIndex, event: "tool.pre", hookKey: "no-prod", scope: "global", matched: true, verdict: "allow",
    reason: null, mode: "enforce", action: "block", ignored: false, failed: false, timedOut: false, durationMs: 0.05,
  };
}

/** Tool calls as a batch of events with the guard's row for each tool.pre. */
function toolCalls(runId: string, from: number, count: number): { events: NewRunEvent[]; ledger: LedgerRowOfBatch[] } {
  const events: NewRunEvent[] = [];
  const ledger: LedgerRowOfBatch[] = [];
  for (let k = from; k < from + count; k++) {
    const toolInput = { command: `ls src/dir-${k}` };
    ledger.push(guardRow(runId, events.length));
    events.push({ type: "tool.pre", data: { toolName: "Bash", toolInput, toolCallId: `live_${k}` } });
    events.push({ type: "tool.post", data: { toolName: "Bash", toolInput, toolCallId: `live_${k}`, output: "a\nb", isError: false, durationMs: 3 } });
  }
  return { events, ledger };
}

async function main(t: TestDatabase, dataDir: string) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const user = await addPerson(t.db, { email: "bench@example.com", passwordHash: await hashPassword("benchmark!"), role: "viewer" });
  const sessionToken = newSecretToken("");
  await createSession(t.db, { tokenHash: hashSecretToken(sessionToken), userId: user.id, ttlMs: 3600_000 });
  const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "big-run" }) }))!;
  const run = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "20,000 events", source: "bench" });
  const events = syntheticEvents(EVENTS);
  for (let i = 0; i < events.length; i += 1000) await appendRunEvents(t.db, { runId: run.id, events: events.slice(i, i + 1000) });
  await finishRun(t.db, { id: run.id, outcome: "completed", response: "done" });
  // The live run: stored tool calls with their ledger rows, still running.
  const live = await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "live", source: "bench" });
  const storedCalls = Math.floor(LIVE_STORED / 2);
  for (let k = 0; k < storedCalls; k += 500) await appendRunRecords(t.db, { runId: live.id, ...toolCalls(live.id, k, Math.min(500, storedCalls - k)) });

  const server = startServer(t, port, dataDir);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"],
  });
  try {
    await waitForHealth(base);
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addCookies([{ name: "hp_session", value: sessionToken, url: base }]);
    const page = await context.newPage();
    // Warm the server's page code once so the figure is the browser's work, not a cold start.
    await page.goto(`${base}/runs`);

    const interactiveMs: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      await page.goto(`${base}/runs/${run.id}`);
      await page.waitForFunction((n) => Number(document.querySelector('[data-testid="run-timeline"]')?.getAttribute("data-loaded-seq")) >= n, EVENTS, { timeout: 60_000, polling: "raf" });
      // Followed to the end: the last event is on screen, then a frame answers.
      await page.waitForFunction(
        () => {
          const el = document.querySelector('[data-testid="run-timeline"] [data-type="session.end"]');
          const box = document.querySelector('[data-testid="run-timeline"]')?.getBoundingClientRect();
          const row = el?.getBoundingClientRect();
          return Boolean(row && box && row.top >= box.top && row.top < box.bottom - 10);
        },
        undefined,
        { timeout: 30_000, polling: "raf" },
      ).catch(async (error) => {
        const where = path.resolve("test-results/bench-ui-failure.png");
        await page.screenshot({ path: where });
        const info = await page.evaluate(() => {
          const el = document.querySelector('[data-testid="run-timeline"]') as HTMLElement;
          return { scrollTop: el.scrollTop, scrollHeight: el.scrollHeight, clientHeight: el.clientHeight, rows: el.querySelectorAll("[data-index]").length, last: el.querySelector("[data-index]:last-child")?.getAttribute("data-type") };
        });
        throw new Error(`the last event never came on screen (${JSON.stringify(info)}; screenshot ${where})`, { cause: error });
      });
      const ms = await page.evaluate(
        () =>
          new Promise<number>((resolve) =>
            requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0)),
          ),
      );
      interactiveMs.push(ms);
    }

    // Scroll top to bottom in steps, one step per frame, and record frame durations.
    const frames = await page.evaluate(async () => {
      const el = document.querySelector('[data-testid="run-timeline"]') as HTMLElement;
      el.scrollTop = 0;
      await new Promise((r) => requestAnimationFrame(r));
      const deltas: number[] = [];
      let last = performance.now();
      const steps = 240;
      const stride = (el.scrollHeight - el.clientHeight) / steps;
      for (let i = 1; i <= steps; i++) {
        el.scrollTop = Math.round(i * stride);
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        deltas.push(now - last);
        last = now;
      }
      return deltas;
    });
    const frame = summarize(frames);
    const interactive = summarize(interactiveMs);

    // The live run open while bursts of tool calls come in.
    // Each ledger response as it arrives (its size once its body is read).
    const ledgerRequests: Promise<number>[] = [];
    let ledgerFrameBytes = 0;
    page.on("response", (response) => {
      if (/\/api\/v1\/runs\/[^/]+\/hooks/.test(response.url())) ledgerRequests.push(response.body().then((b) => b.length, () => 0));
    });
    page.on("websocket", (ws) => ws.on("framereceived", ({ payload }) => {
      const text = typeof payload === "string" ? payload : payload.toString();
      if (text.startsWith('{"type":"ledger"')) ledgerFrameBytes += Buffer.byteLength(text);
    }));
    const rowsIn = (n: number) => page.waitForFunction((want) => Number(document.querySelector('[data-testid="run-timeline"]')?.getAttribute("data-ledger-rows")) >= want, n, { timeout: 30_000, polling: "raf" });
    await page.goto(`${base}/runs/${live.id}`);
    await rowsIn(storedCalls);
    const loadRequests = ledgerRequests.length;
    const loadBytes = (await Promise.all(ledgerRequests)).reduce((a, b) => a + b, 0);
    const wholeLedgerBytes = (await (await fetch(`${base}/api/v1/runs/${live.id}/hooks`, { headers: { cookie: `hp_session=${sessionToken}` } })).arrayBuffer()).byteLength;
    const latencies: number[] = [];
    let calls = storedCalls;
    for (let burst = 0; burst < LIVE_BURSTS; burst++) {
      const started = performance.now();
      await appendRunRecords(t.db, { runId: live.id, ...toolCalls(live.id, calls, BURST_CALLS) });
      calls += BURST_CALLS;
      await rowsIn(calls);
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 400));
    }
    const liveRequests = ledgerRequests.length - loadRequests;
    const lat = summarize(latencies);
    console.log("\nbench:ui — a run of %d stored events in Chromium\n", EVENTS);
    console.log(`time to interactive timeline: ${interactiveMs.map(fmt).join(" / ")} ms (best ${fmt(Math.min(...interactiveMs))}, median ${fmt(interactive.p50)}; target < 1500 ms)`);
    console.log(`frame time while scrolling:   p50 ${fmt(frame.p50)} ms, p95 ${fmt(frame.p95)} ms, max ${fmt(Math.max(...frames))} ms over ${frame.n} frames`);
    console.log(`\na live run of ${storedCalls * 2} stored events (${storedCalls} ledger rows), then ${LIVE_BURSTS} bursts of ${BURST_CALLS} tool calls each with its ledger row:`);
    console.log(`  ledger at load: ${loadRequests} request(s), ${(loadBytes / 1024).toFixed(0)} KiB`);
    console.log(`  commit to ledger rows in the page: p50 ${fmt(lat.p50)} ms, p95 ${fmt(lat.p95)} ms, max ${fmt(Math.max(...latencies))} ms`);
    console.log(`  ledger while live: ${liveRequests} request(s), ${(ledgerFrameBytes / 1024).toFixed(1)} KiB on the socket; refetching the whole ledger after each burst (the run view before) would be ${LIVE_BURSTS} requests, ~${((LIVE_BURSTS * wholeLedgerBytes) / 1024 / 1024).toFixed(1)} MiB`);
  } finally {
    await browser.close();
    await stop(server);
  }
}

runServerBench("bench:ui", main);
