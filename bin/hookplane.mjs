#!/usr/bin/env node
/**
 * The `hookplane` command. Plain ESM with only node: built-ins, because Claude Code starts
 * `hookplane hook claude-code` before EVERY tool call: its start-up is on the agent's critical
 * path (npm run bench:bridge measures it against a bare `node -e ""`). node:http rather than the
 * global fetch for the same reason: fetch loads undici on first use, ~25 ms.
 *
 *   hookplane hook claude-code --agent NAME [--fail-open] [--url URL] [--timeout-ms N]
 *   hookplane audit verify [--json] [--url URL]
 *   hookplane worker
 *
 * Exit codes of `hook claude-code` (Claude Code's convention):
 * - 0 with Hookplane's JSON answer on stdout, whatever it decided: a deny is
 *   `permissionDecision: "deny"` (PreToolUse) or `decision: "block"` (UserPromptSubmit), which
 *   Claude Code honours like exit 2 but with a structured reason.
 * - 2 with the reason on stderr when there is no answer (server unreachable, timeout, 401, any
 *   error status): fail closed. Not on Stop / SubagentStop, where exit 2 would keep Claude working
 *   instead of stopping it: there it warns and exits 0.
 * - 0 with a warning on stderr instead of 2 when --fail-open is set.
 */
import { request as httpRequest } from "node:http";

const USAGE = `Usage:
  hookplane hook claude-code --agent NAME [--fail-open] [--url URL] [--timeout-ms N]
      Reads a Claude Code hook's stdin JSON, asks Hookplane, prints Claude Code's JSON answer.
      Env: HOOKPLANE_URL (default http://127.0.0.1:3000), HOOKPLANE_TOKEN (operator token),
           HOOKPLANE_AGENT (instead of --agent), HOOKPLANE_TIMEOUT_MS (default 590000).
  hookplane audit verify [--json] [--url URL]
      Seals and checks the hash chains of the audit log and the hook ledger; names the first
      broken row. Exit 0 intact, 1 broken, 2 could not check. Env: HOOKPLANE_URL,
      HOOKPLANE_TOKEN (an admin token).
  hookplane worker
      Works queued runs (needs DATABASE_URL; see npm run worker).`;

const DEFAULT_TIMEOUT_MS = 590_000; // under Claude Code's default hook timeout of 600 s

function parseArgs(argv) {
  const flags = { positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--fail-open") flags.failOpen = true;
    else if (arg === "--json") flags.json = true;
    else if (arg === "--help" || arg === "-h") flags.help = true;
    else if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      flags[name] = value;
    } else flags.positional.push(arg);
  }
  return flags;
}

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on("data", (chunk) => chunks.push(chunk));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}

/** POSTs `body` (GETs when it is undefined); resolves {status, text} or rejects with a reason a person can act on. */
async function post(url, headers, body, timeoutMs) {
  const target = new URL(url);
  const request = target.protocol === "https:" ? (await import("node:https")).request : httpRequest;
  const options =
    body === undefined
      ? { method: "GET", headers }
      : { method: "POST", headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) } };
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      options,
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

function errorMessageOf(text) {
  try {
    return JSON.parse(text)?.error?.message ?? text.slice(0, 300);
  } catch {
    return text.slice(0, 300);
  }
}

/** No answer from Hookplane: block (exit 2) unless told to fail open, or where blocking makes no sense. */
function noAnswer(problem, { failOpen, eventName }) {
  const neverBlock = eventName === "Stop" || eventName === "SubagentStop";
  if (failOpen || neverBlock) {
    const why = failOpen ? "allowing because --fail-open is set" : `not blocking ${eventName}: exit 2 there would keep Claude working`;
    process.stderr.write(`hookplane: ${problem} — ${why}\n`, () => process.exit(0));
    return;
  }
  process.stderr.write(`${problem} — blocking because --fail-open is not set\n`, () => process.exit(2));
}

async function hookClaudeCode(flags) {
  const failOpen = Boolean(flags.failOpen);
  const base = (flags.url ?? process.env.HOOKPLANE_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  const agent = flags.agent ?? process.env.HOOKPLANE_AGENT;
  const timeoutMs = Number(flags["timeout-ms"] ?? process.env.HOOKPLANE_TIMEOUT_MS ?? DEFAULT_TIMEOUT_MS);
  const input = await readStdin();
  let eventName;
  try {
    eventName = JSON.parse(input)?.hook_event_name;
  } catch {
    return noAnswer("Hookplane bridge: stdin is not Claude Code's hook JSON", { failOpen, eventName });
  }
  if (!agent) return noAnswer("Hookplane bridge: no agent named (--agent NAME or HOOKPLANE_AGENT)", { failOpen, eventName });
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return noAnswer(`Hookplane bridge: --timeout-ms must be a positive number`, { failOpen, eventName });
  const token = process.env.HOOKPLANE_TOKEN;
  if (!token) return noAnswer("Hookplane bridge: HOOKPLANE_TOKEN is not set (create an operator token in Settings)", { failOpen, eventName });

  const url = `${base}/api/v1/ingest/claude-code`;
  let response;
  try {
    response = await post(url, { authorization: `Bearer ${token}`, "x-hookplane-agent": agent }, input, timeoutMs);
  } catch (error) {
    return noAnswer(`Hookplane unreachable at ${base}: ${error.code ?? error.message ?? error}`, { failOpen, eventName });
  }
  if (response.status !== 200) {
    return noAnswer(`Hookplane at ${base} answered ${response.status}: ${errorMessageOf(response.text)}`, { failOpen, eventName });
  }
  // Exit once the answer is flushed: stdout is asynchronous on some platforms (macOS pipes).
  process.stdout.write(response.text.endsWith("\n") ? response.text : `${response.text}\n`, () => process.exit(0));
}

function describeChain(name, chain) {
  const unsealed = chain.unsealed ? ` (${chain.unsealed} appended since, not yet sealed)` : "";
  const lines = [];
  if (!chain.firstBroken) {
    const head = chain.head ? `, head #${chain.head.position} ${chain.head.hash}` : "";
    lines.push(`${name}: intact, ${chain.rows} rows${unsealed}${head}`);
    if (chain.anchor) lines.push(`  starts after retention at #${chain.anchor.position} (days before ${chain.anchor.before})`);
    return lines;
  }
  const broken = chain.firstBroken;
  lines.push(`${name}: BROKEN at ${broken.table} row id ${broken.id}, position ${broken.position}: ${broken.problem}`);
  lines.push(`  expected hash ${broken.expectedHash || "(none: the row should not be there)"}`);
  lines.push(`  stored hash   ${broken.storedHash}`);
  lines.push(`  ${chain.rows} rows in the chain${unsealed}`);
  return lines;
}

/** `hookplane audit verify`: exit 0 when both chains hold, 1 when one is broken, 2 when it could not check. */
async function auditVerify(flags) {
  const base = (flags.url ?? process.env.HOOKPLANE_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  const token = process.env.HOOKPLANE_TOKEN;
  const fail = (message) => process.stderr.write(`hookplane: ${message}\n`, () => process.exit(2));
  if (!token) return fail("HOOKPLANE_TOKEN is not set (an admin token: Settings, API tokens)");
  let response;
  try {
    response = await post(`${base}/api/v1/audit/verify`, { authorization: `Bearer ${token}` }, undefined, 10 * 60_000);
  } catch (error) {
    return fail(`Hookplane unreachable at ${base}: ${error.code ?? error.message ?? error}`);
  }
  if (response.status !== 200) return fail(`Hookplane at ${base} answered ${response.status}: ${errorMessageOf(response.text)}`);
  let report;
  try {
    report = JSON.parse(response.text);
  } catch {
    return fail(`Hookplane at ${base} answered something that is not JSON`);
  }
  const text = flags.json
    ? `${JSON.stringify(report, null, 2)}\n`
    : `${[...describeChain("audit log", report.audit), ...describeChain("hook ledger", report.ledger)].join("\n")}\n`;
  process.stdout.write(text, () => process.exit(report.ok ? 0 : 1));
}

async function worker() {
  const { spawn } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const root = fileURLToPath(new URL("..", import.meta.url));
  const { existsSync } = await import("node:fs");
  // The compiled worker (npm run build) when there is one; from the sources through tsx otherwise.
  const compiled = `${root}dist/worker.mjs`;
  const args = existsSync(compiled) ? [compiled] : ["--import", import.meta.resolve("tsx"), `${root}lib/features/runs/queue/worker-main.ts`];
  const child = spawn(process.execPath, args, {
    stdio: "inherit",
    // Wherever the command runs, the migrations come from the package (and tsx reads the path
    // aliases from its tsconfig); the data folder stays relative to the caller.
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: process.env.TSX_TSCONFIG_PATH ?? `${root}tsconfig.json`,
      HOOKPLANE_MIGRATIONS_DIR: process.env.HOOKPLANE_MIGRATIONS_DIR ?? `${root}drizzle`,
    },
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

async function main() {
  let flags;
  try {
    flags = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`hookplane: ${error.message}\n${USAGE}\n`);
    process.exit(2);
  }
  const [command, sub] = flags.positional;
  if (flags.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(command || flags.help ? 0 : 1);
  }
  if (command === "hook" && sub === "claude-code") return hookClaudeCode(flags);
  if (command === "audit" && sub === "verify") return auditVerify(flags);
  if (command === "worker") return worker();
  process.stderr.write(`hookplane: unknown command "${flags.positional.join(" ")}"\n${USAGE}\n`);
  // A misspelt hook command must not let a tool call through.
  process.exit(2);
}

main().catch((error) => {
  const failOpen = process.argv.includes("--fail-open");
  process.stderr.write(`hookplane: ${error?.stack ?? error}\n— ${failOpen ? "allowing because --fail-open is set" : "blocking"}\n`);
  process.exit(failOpen ? 0 : 2);
});
