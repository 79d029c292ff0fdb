/**
 * npm run bench:bridge — the Claude Code bridge's round trip on the allow path: the real
 * `hookplane hook claude-code` CLI, fed a PreToolUse payload, against the real ingest handler (an
 * agent with no hooks), beside a bare `node -e ""` start in the same run, alternating so both see
 * the same machine load. Prints p50/p99 of each and their ratio (target: within 1.5x of bare).
 *   BENCH_RUNS (default 40), DATABASE_URL (default: in-memory PGlite).
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = `${ROOT}bin/hookplane.mjs`;
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const WARMUP = 3;

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** Wall time from spawn to exit, in ms; rejects on a non-zero exit. */
function timed(args, { env, stdin } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`${args.join(" ")} exited ${code}: ${err}`));
      else resolve({ ms, out });
    });
    child.stdin.end(stdin ?? "");
  });
}

async function startServer() {
  const child = spawn(process.execPath, ["--import", "tsx", `${ROOT}bench/bridge-server.ts`], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`bench server exited ${code}`)));
  });
  return { child, ...JSON.parse(line) };
}

async function main() {
  const server = await startServer();
  try {
    const env = { HOOKPLANE_URL: server.url, HOOKPLANE_TOKEN: server.token };
    const payload = (i) =>
      JSON.stringify({
        session_id: "bench-session",
        transcript_path: "/tmp/bench.jsonl",
        cwd: ROOT,
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: `echo ${i}` },
        tool_use_id: `toolu_bench_${i}`,
      });
    const bridge = [];
    const bare = [];
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const b = await timed(["-e", ""]);
      const r = await timed([CLI, "hook", "claude-code", "--agent", server.agent], { env, stdin: payload(i) });
      if (r.out.trim() !== "{}") throw new Error(`the allow path answered ${r.out}`);
      if (i >= WARMUP) {
        bare.push(b.ms);
        bridge.push(r.ms);
      }
    }
    const s = stats(bridge);
    const n = stats(bare);
    const row = (label, x) => `${label.padEnd(34)} p50 ${x.p50.toFixed(1).padStart(7)} ms   p99 ${x.p99.toFixed(1).padStart(7)} ms`;
    console.log(`Claude Code bridge, allow path, ${RUNS} runs (${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}), node ${process.version}`);
    console.log(row('bare `node -e ""`', n));
    console.log(row("hookplane hook claude-code", s));
    console.log(`ratio (bridge / bare)              p50 ${(s.p50 / n.p50).toFixed(2)}x       p99 ${(s.p99 / n.p99).toFixed(2)}x   (target <= 1.5x)`);
  } finally {
    server.child.kill("SIGTERM");
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
