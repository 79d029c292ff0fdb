/**
 * The hook runtime's cost where it matters most: tool.pre, before every tool call.
 * Prints µs per dispatch (p50, p99) for 0, 1, 10 and 100 in-process hooks, the drift over 20,000
 * dispatches sharing one abort signal, and a command hook's overhead over spawning `sh -c` bare.
 * Timing is per batch (per-dispatch µs = batch time / batch size) so timer resolution does not
 * dominate; percentiles are over batches. Every dispatch gets its own event and a fresh toolInput
 * object (as the agent loop does: one parsed tool call each), built before its batch is timed, so
 * nothing can be reused across dispatches by object identity.
 */
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { createHookRuntime, type HookEvent, type RuntimeHook } from "../lib/core/hooks";

const runtime = createHookRuntime({ allowCodeExecution: true });

/**
 * Loom's no-prod hook as a canonical spec: block writes under /srv/prod. The literal pattern is a
 * substring search; the regex one (same meaning) runs on RE2 (re2js).
 */
const LITERAL_DENY = '"file_path":"/srv/prod';
const REGEX_DENY = '"file_path":"/srv/prod(/|")';

function noProdHooks(count: number, denyIf = LITERAL_DENY): RuntimeHook[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `no-prod-${i}`,
    event: "tool.pre",
    scope: "global",
    enabled: true,
    mode: "enforce",
    action: { type: "block", reason: "Production paths are off-limits in this session.", denyIf },
  }));
}

function toolPre(i: number): HookEvent {
  return {
    type: "tool.pre",
    runId: "run-bench",
    agentName: "bench",
    ts: 0,
    data: { toolName: "write_file", toolInput: { file_path: `/home/app/src/file-${i % 64}.ts`, content: "hello" }, toolCallId: `c${i}` },
  };
}

const INPUT_NOTE = "each dispatch: a fresh event and toolInput {file_path, content}, built untimed before its batch";

/** One batch's events, all distinct objects. */
function freshEvents(count: number, offset: number): HookEvent[] {
  const events = new Array<HookEvent>(count);
  for (let i = 0; i < count; i++) events[i] = toolPre(offset + i);
  return events;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

/** µs per dispatch for each batch; the dispatch promise is awaited only when it is pending. */
async function measure(hooks: RuntimeHook[], batches: number, batchSize: number, signal?: AbortSignal): Promise<number[]> {
  const perDispatch: number[] = [];
  for (let b = 0; b < batches; b++) {
    const events = freshEvents(batchSize, b * batchSize);
    const start = performance.now();
    let last: Promise<unknown> | undefined;
    for (let i = 0; i < batchSize; i++) last = runtime.dispatch(hooks, events[i], { signal });
    await last;
    perDispatch.push(((performance.now() - start) * 1000) / batchSize);
  }
  return perDispatch;
}

/** The hooks measured must work: allow the bench's inputs, block a write under /srv/prod. */
async function checkVerdicts(hooks: RuntimeHook[]) {
  const allowed = await runtime.dispatch(hooks, toolPre(0));
  const prod = toolPre(0);
  prod.data.toolInput = { file_path: "/srv/prod/app.ts", content: "hello" };
  const blocked = await runtime.dispatch(hooks, prod);
  if (allowed.verdict !== "allow" || blocked.verdict !== (hooks.length > 0 ? "block" : "allow")) {
    throw new Error(`unexpected verdicts: ${allowed.verdict} / ${blocked.verdict}`);
  }
}

async function latencyTable(denyIf: string, label: string) {
  console.log(`\ntool.pre dispatch, in-process block hooks, denyIf ${label} ${denyIf} (no match)`);
  console.log(`(${INPUT_NOTE})`);
  console.log("hooks     p50 µs    p99 µs");
  for (const count of [0, 1, 10, 100]) {
    const hooks = noProdHooks(count, denyIf);
    const batchSize = count >= 100 ? 50 : count >= 10 ? 200 : 1000;
    await checkVerdicts(hooks);
    await measure(hooks, 50, batchSize); // warm-up: JIT, caches
    const sorted = (await measure(hooks, 300, batchSize)).sort((a, b) => a - b);
    console.log(`${String(count).padStart(5)} ${percentile(sorted, 50).toFixed(3).padStart(9)} ${percentile(sorted, 99).toFixed(3).padStart(9)}`);
  }
}

async function drift() {
  const hooks = noProdHooks(10);
  const controller = new AbortController();
  const times: number[] = [];
  const batch = 20;
  for (let b = 0; b < 20_000 / batch; b++) {
    const events = freshEvents(batch, b * batch);
    const start = performance.now();
    let last: Promise<unknown> | undefined;
    for (let i = 0; i < batch; i++) last = runtime.dispatch(hooks, events[i], { signal: controller.signal });
    await last;
    times.push(((performance.now() - start) * 1000) / batch);
  }
  const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  // Batches of 20: the first and last 10 batches are the first and last 200 dispatches.
  const first = median(times.slice(0, 10));
  const last = median(times.slice(-10));
  const heap = process.memoryUsage().heapUsed / 1024 / 1024;
  console.log(`\n20,000 dispatches (10 hooks) sharing one abort signal (${INPUT_NOTE})`);
  console.log(`first 200 ${first.toFixed(3)} µs, last 200 ${last.toFixed(3)} µs, ratio ${(last / first).toFixed(2)}x (heap ${heap.toFixed(1)} MiB)`);
}

function spawnBare(command: string): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", command], { stdio: ["pipe", "pipe", "pipe"], detached: true });
    child.stdout.on("data", () => {});
    child.stderr.on("data", () => {});
    child.stdin.on("error", () => {});
    child.stdin.end("{}");
    child.on("close", () => resolve());
  });
}

async function commandOverhead() {
  const command = "cat > /dev/null; exit 0";
  const hooks: RuntimeHook[] = [
    { id: "cmd", event: "tool.pre", scope: "global", enabled: true, mode: "enforce", action: { type: "command", command } },
  ];
  const rounds = 200;
  const bare: number[] = [];
  const hooked: number[] = [];
  for (let i = 0; i < 20; i++) {
    await spawnBare(command);
    await runtime.dispatch(hooks, toolPre(i));
  }
  // Interleaved so machine noise hits both sides alike.
  for (let i = 0; i < rounds; i++) {
    let start = performance.now();
    await spawnBare(command);
    bare.push(performance.now() - start);
    start = performance.now();
    const result = await runtime.dispatch(hooks, toolPre(i));
    hooked.push(performance.now() - start);
    if (result.verdict !== "allow") throw new Error(`command hook did not allow: ${result.reason}`);
  }
  const med = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`\ncommand hook vs bare \`sh -c\` spawn (${rounds} rounds, medians)`);
  console.log(`bare ${(med(bare) * 1000).toFixed(0)} µs, hook ${(med(hooked) * 1000).toFixed(0)} µs, ratio ${(med(hooked) / med(bare)).toFixed(3)}x`);
}

await latencyTable(LITERAL_DENY, "literal");
await latencyTable(REGEX_DENY, "regex");
await drift();
await commandOverhead();
