/**
 * npm run bench:bridge — each coding-agent bridge's round trip on the allow path: the real
 * `hookplane hook <agent>` CLI, fed that agent's tool-call payload, against the real ingest
 * handlers (an agent with no hooks), beside a bare `node -e ""` start in the same run, all
 * alternating so each sees the same machine load; and Claude Code's `http` hook type (the POST
 * alone on a kept-alive connection). Prints p50/p99 of each, the ratio to bare (target 1.3x;
 * http p99 < 15 ms), and how the first agent's time over bare splits between the server's answer
 * and the CLI's own. Wall-clock figures: read them beside the load average it prints.
 *   BENCH_RUNS (default 40), BENCH_AGENTS (e.g. claude-code,codex), DATABASE_URL (default: PGlite).
 */
import { spawn } from "node:child_process";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { loadavg } from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = `${ROOT}bin/hookplane.cjs`;
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

/** Each agent's allow-path hook call: the CLI's arguments and one tool call's stdin. */
const AGENTS = {
  "claude-code": { args: [], stdin: (i) => ({ session_id: "bench-claude", transcript_path: "/tmp/bench.jsonl", cwd: ROOT, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: `echo ${i}` }, tool_use_id: `toolu_bench_${i}` }) },
  codex: { args: [], stdin: (i) => ({ session_id: "bench-codex", cwd: ROOT, hook_event_name: "PreToolUse", model: "gpt-5", tool_name: "Bash", tool_input: { command: `echo ${i}` }, tool_use_id: `call_bench_${i}` }) },
  "gemini-cli": { args: [], stdin: (i) => ({ session_id: "bench-gemini", cwd: ROOT, hook_event_name: "BeforeTool", timestamp: new Date().toISOString(), tool_name: "run_shell_command", tool_input: { command: `echo ${i}` } }) },
  copilot: { args: ["--event", "preToolUse"], stdin: (i) => ({ sessionId: "bench-copilot", cwd: ROOT, timestamp: Date.now(), toolName: "bash", toolArgs: { command: `echo ${i}` } }) },
  cursor: { args: [], stdin: (i) => ({ conversation_id: "bench-cursor", hook_event_name: "beforeShellExecution", command: `echo ${i}`, cwd: ROOT }) },
};

/** Claude Code's `http` hook type: the same POST without the CLI, on a kept-alive connection as Claude Code keeps one. */
async function httpRoundTrip(server, i, agent) {
  const body = JSON.stringify(AGENTS["claude-code"].stdin(i));
  const started = process.hrtime.bigint();
  const status = await new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}/api/v1/ingest/claude-code`, {
      method: "POST",
      agent,
      headers: { "content-type": "application/json", authorization: `Bearer ${server.token}`, "x-hookplane-agent": server.agent, "content-length": Buffer.byteLength(body) },
    }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", reject);
    req.end(body);
  });
  if (status !== 200) throw new Error(`http hook answered ${status}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function main() {
  const only = process.env.BENCH_AGENTS?.split(",") ?? Object.keys(AGENTS);
  const server = await startServer();
  try {
    const env = { HOOKPLANE_URL: server.url, HOOKPLANE_TOKEN: server.token };
    const bare = [];
    const bridges = Object.fromEntries(only.map((a) => [a, []]));
    const http = [];
    const keepAlive = new HttpAgent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < WARMUP + RUNS; i++) {
      // Alternate everything in one loop so each sees the same machine load.
      const b = await timed(["-e", ""]);
      if (i >= WARMUP) bare.push(b.ms);
      for (const name of only) {
        const { args, stdin } = AGENTS[name];
        const r = await timed([CLI, "hook", name, "--agent", server.agent, ...args], { env, stdin: JSON.stringify(stdin(i)) });
        if (r.out.trim() !== "{}") throw new Error(`${name}: the allow path answered ${r.out}`);
        if (i >= WARMUP) bridges[name].push(r.ms);
      }
      const h = await httpRoundTrip(server, 100_000 + i, keepAlive);
      if (i >= WARMUP) http.push(h);
    }
    keepAlive.destroy();
    const n = stats(bare);
    const row = (label, x) => `${label.padEnd(34)} p50 ${x.p50.toFixed(1).padStart(7)} ms   p99 ${x.p99.toFixed(1).padStart(7)} ms`;
    console.log(`Coding-agent bridges, allow path, ${RUNS} runs (${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}), node ${process.version}, load ${loadavg()[0].toFixed(2)}`);
    console.log(row('bare `node -e ""`', n));
    for (const name of only) {
      const s = stats(bridges[name]);
      console.log(`${row(`hookplane hook ${name}`, s)}   ratio p50 ${(s.p50 / n.p50).toFixed(2)}x  p99 ${(s.p99 / n.p99).toFixed(2)}x  (target <= 1.3x)`);
    }
    const h = stats(http);
    console.log(`${row("Claude Code http hook (no CLI)", h)}   (target p99 < 15 ms)`);
    // Where a CLI call's time over a bare start goes: the server's answer (the http hook's round
    // trip) and what is left, the CLI's own loading, connection and exit.
    const over = stats(bridges[only[0]]).p50 - n.p50;
    console.log(`p50 over bare for ${only[0]}: ${over.toFixed(1)} ms = the server's answer ~${h.p50.toFixed(1)} ms + the CLI's own ~${(over - h.p50).toFixed(1)} ms`);
  } finally {
    server.child.kill("SIGTERM");
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
