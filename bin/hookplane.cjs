#!/usr/bin/env node
/**
 * The `hookplane` command. CommonJS with only node: built-ins, because a coding agent starts
 * `hookplane hook <agent>` before EVERY tool call: its start-up is on the agent's critical path
 * (npm run bench:bridge measures it against a bare `node -e ""`). So the hook path loads nothing
 * it does not use: CommonJS skips the ESM loader (~4 ms), the request goes over node:net
 * (lib/http-exchange.cjs; node:http costs ~3 ms more, the global fetch ~25 ms), stdin and
 * stdout are read and written directly rather than through streams, and the transcript readers
 * (lib/transcript-usage.cjs) load only at a turn's end.
 *
 *   hookplane hook claude-code|codex|gemini-cli|copilot|cursor --agent NAME [--fail-open] [--url URL] [--timeout-ms N]
 *   hookplane login [--url URL] [--name MACHINE] | hookplane logout
 *   hookplane audit verify [--json] [--url URL]
 *   hookplane worker
 *
 * Exit codes of `hook claude-code` (Claude Code's convention):
 * - 0 with Hookplane's JSON answer on stdout, whatever it decided: a deny is
 *   `permissionDecision: "deny"` (PreToolUse) or `decision: "block"` (UserPromptSubmit), which
 *   Claude Code honours like exit 2 but with a structured reason.
 * - 2 with the reason on stderr when there is no answer (server unreachable, timeout, 401, any
 *   error status) to an event that gates something (PreToolUse, PermissionRequest,
 *   UserPromptSubmit): fail closed. Elsewhere it warns and exits 0: on Stop / SubagentStop exit 2
 *   would keep Claude working instead of stopping it, and the other events cannot be refused.
 * - 0 with a warning on stderr instead of 2 when --fail-open is set.
 * `hook gemini-cli` follows Gemini CLI's identical convention: it fails closed on BeforeTool and
 * BeforeAgent, and never on AfterAgent (exit 2 there makes Gemini retry the turn). See AGENTS.
 *
 * At a turn's end (Stop, SubagentStop, PreCompact, SessionEnd) it reads the transcript Claude Code
 * names and sends each assistant message's usage along (`hookplane_usage`), for the session's cost.
 *
 * It never outlives its caller: Claude Code runs it under `/bin/sh -c`, so when the shell or Claude
 * Code above it goes away (Claude Code exited, or killed the hook on its own timeout) while an
 * approval is pending, the CLI drops its request (the server marks the approval abandoned) and
 * exits. stdin's end is no such sign: Claude Code closes it once the payload is written.
 */
"use strict";
const { readFileSync, readSync, writeSync } = require("node:fs");
const { exchange } = require("./lib/http-exchange.cjs");

const USAGE = `Usage:
  hookplane hook claude-code|codex|gemini-cli|copilot|cursor --agent NAME [--fail-open] [--url URL] [--timeout-ms N]
      Reads a Claude Code (Codex, Gemini CLI, Copilot CLI) hook's stdin JSON, asks Hookplane,
      prints its JSON answer. Copilot CLI's stdin does not name its event: add --event EVENT.
      Env: HOOKPLANE_URL (default http://127.0.0.1:3000, or the one login stored), HOOKPLANE_TOKEN
           (a bridge credential; default the one login stored),
           HOOKPLANE_AGENT (instead of --agent), HOOKPLANE_TIMEOUT_MS (default 590000).
  hookplane login [--url URL] [--name MACHINE]
      Signs this machine in as you: prints a link and a code to approve in the browser (single
      sign-on applies) and stores your bridge credential for this OS user (0600); hook uses it.
  hookplane logout
      Revokes that credential and forgets it.
  hookplane spool flush
      Sends the decisions hook took alone while Hookplane was unreachable (it does so by itself
      once Hookplane answers again).
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

/**
 * All of stdin. Read synchronously: the agent writes its payload and closes stdin at once, and a
 * stream would cost its set-up. A non-blocking stdin (EAGAIN) is read on as a stream.
 */
function readStdin() {
  const chunks = [];
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n;
    try {
      n = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      if (error.code === "EOF") break;
      if (error.code !== "EAGAIN") throw error;
      return new Promise((resolve, reject) => {
        process.stdin.on("data", (chunk) => chunks.push(chunk));
        process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        process.stdin.on("error", reject);
      });
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Promise.resolve(Buffer.concat(chunks).toString("utf8"));
}

/**
 * Writes `text` to stdout (fd 1) or stderr (fd 2), then exits with `code`. Directly, with no stream
 * to set up; through the stream when the descriptor is non-blocking and full (EAGAIN), and the
 * exit waits for it to drain. A reader that is gone (EPIPE) changes nothing about the exit code.
 */
function writeAndExit(fd, text, code) {
  let rest = Buffer.from(text);
  try {
    while (rest.length > 0) rest = rest.subarray(writeSync(fd, rest));
  } catch (error) {
    if (error.code === "EAGAIN") {
      (fd === 1 ? process.stdout : process.stderr).write(rest, () => process.exit(code));
      return;
    }
  }
  process.exit(code);
}

/** One line to stdout (1) or stderr (2), at once (login prints its link before it waits). */
function warnOrPrint(fd, line) {
  try {
    writeSync(fd, `${line}\n`);
  } catch {
    (fd === 1 ? process.stdout : process.stderr).write(`${line}\n`);
  }
}

/** Writes `text` to stderr and goes on (a warning before the answer). */
function warn(text) {
  try {
    writeSync(2, text);
  } catch {
    process.stderr.write(text);
  }
}

/** POSTs `body` as JSON (GETs when it is undefined); resolves {status, text} or rejects with a reason a person can act on. */
/**
 * The machine this hook runs on, for the record (the server labels it as reported, not proven):
 * its host name and the OS user, printable ASCII only (a header cannot carry more).
 */
function machineHeaders() {
  const os = require("node:os");
  const printable = (value) => String(value).replace(/[^\x20-\x7e]/g, "?").slice(0, 200);
  const headers = { "x-hookplane-host": printable(os.hostname()) };
  // Run by a CI job (GitHub Actions, GitLab, Buildkite... all set CI): the agent runs headless.
  if (process.env.CI && !/^(0|false)$/i.test(process.env.CI)) headers["x-hookplane-ci"] = "1";
  try {
    headers["x-hookplane-os-user"] = printable(os.userInfo().username);
  } catch {
    // No passwd entry for this uid (some containers): the host alone.
  }
  return headers;
}

function post(url, headers, body, timeoutMs, onRequest) {
  return exchange(url, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    body,
    timeoutMs,
    onRequest,
  });
}

function errorMessageOf(text) {
  try {
    return JSON.parse(text)?.error?.message ?? text.slice(0, 300);
  } catch {
    return text.slice(0, 300);
  }
}

/**
 * The coding agents the bridge speaks for. `gating`: events where exit 2 refuses something the
 * agent was about to do; only there does no answer block. `keepsWorking`: events where exit 2
 * would send the agent back to work instead of letting it stop. `usageEvents`: the turn ends after
 * which its transcript holds finished model calls; `transcript`: where that transcript is (its
 * reader, by the same key, is in lib/transcript-usage.cjs).
 */
const AGENTS = {
  "claude-code": {
    name: "Claude Code",
    gating: new Set(["PreToolUse", "PermissionRequest", "UserPromptSubmit"]),
    keepsWorking: new Set(["Stop", "SubagentStop"]),
    usageEvents: new Set(["Stop", "SubagentStop", "PreCompact", "SessionEnd"]),
    transcript: (payload, eventName) =>
      eventName === "SubagentStop" && typeof payload.agent_transcript_path === "string"
        ? { path: payload.agent_transcript_path, agentId: payload.agent_id }
        : { path: payload.transcript_path },
  },
  codex: {
    name: "Codex",
    gating: new Set(["PreToolUse", "PermissionRequest", "UserPromptSubmit"]),
    keepsWorking: new Set(["Stop", "SubagentStop"]),
    usageEvents: new Set(["Stop", "PreCompact", "SessionEnd"]),
    transcript: (payload) => ({ path: payload.transcript_path, model: payload.model }),
  },
  copilot: {
    name: "Copilot CLI",
    // Copilot's stdin does not name the event: the hook command does (--event), and it is sent along.
    eventFlag: true,
    gating: new Set(["preToolUse"]),
    keepsWorking: new Set(["agentStop", "subagentStop"]),
    usageEvents: new Set(["agentStop"]),
    transcript: (payload) => ({ path: payload.transcriptPath }),
    // Copilot reads a deny from JSON; its exit codes are not a documented way to refuse.
    refusal: (eventName, problem) => (eventName === "preToolUse" ? { permissionDecision: "deny", permissionDecisionReason: problem } : undefined),
  },
  cursor: {
    name: "Cursor",
    gating: new Set(["beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "beforeSubmitPrompt"]),
    keepsWorking: new Set(["stop"]),
    usageEvents: new Set(),
    // Cursor reads its gates' answers from JSON: a refusal is said there.
    refusal: (eventName, problem) =>
      eventName === "beforeSubmitPrompt" ? { continue: false, user_message: problem } : { permission: "deny", user_message: problem, agent_message: problem },
  },
  "gemini-cli": {
    name: "Gemini CLI",
    gating: new Set(["BeforeTool", "BeforeAgent"]),
    keepsWorking: new Set(["AfterAgent"]),
    usageEvents: new Set(["AfterAgent", "SessionEnd", "PreCompress"]),
    transcript: (payload) => ({ path: payload.transcript_path }),
  },
};

/**
 * No answer from Hookplane: block (exit 2) unless told to fail open, or where blocking makes no
 * sense. With `offline` (Hookplane unreachable or failing, not refusing), the decision taken
 * alone is kept in the offline spool and sent once Hookplane answers again.
 */
function noAnswer(problem, { failOpen, eventName, bridge, offline }) {
  const neverBlock = eventName !== undefined && !bridge.gating.has(eventName);
  if (offline) {
    const decision = failOpen || neverBlock ? "allowed" : "blocked";
    require("./lib/offline-spool.cjs").spoolDecision({ ...offline, decision, reason: problem });
  }
  if (failOpen || neverBlock) {
    const why = failOpen
      ? "allowing because --fail-open is set"
      : bridge.keepsWorking.has(eventName)
        ? `not blocking ${eventName}: exit 2 there would keep ${bridge.name} working`
        : `not blocking ${eventName}: it gates nothing`;
    writeAndExit(2, `hookplane: ${problem} — ${why}\n`, 0);
    return;
  }
  const refusal = bridge.refusal?.(eventName, `${problem} — blocking because --fail-open is not set`);
  if (refusal) {
    warn(`${problem} — blocking because --fail-open is not set\n`);
    writeAndExit(1, `${JSON.stringify(refusal)}\n`, 0);
    return;
  }
  writeAndExit(2, `${problem} — blocking because --fail-open is not set\n`, 2);
}

async function hookAgent(kind, flags) {
  const bridge = AGENTS[kind];
  const failOpen = Boolean(flags.failOpen);
  // HOOKPLANE_TOKEN, else what `hookplane login` stored for this OS user.
  const stored = process.env.HOOKPLANE_TOKEN ? undefined : require("./lib/stored-credential.cjs").readStoredCredential();
  const base = (flags.url ?? process.env.HOOKPLANE_URL ?? stored?.url ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  const agent = flags.agent ?? process.env.HOOKPLANE_AGENT;
  const timeoutMs = Number(flags["timeout-ms"] ?? process.env.HOOKPLANE_TIMEOUT_MS ?? DEFAULT_TIMEOUT_MS);
  const input = await readStdin();
  let eventName;
  const fail = (problem) => noAnswer(problem, { failOpen, eventName, bridge });
  let body = input;
  try {
    const payload = JSON.parse(input);
    if (bridge.eventFlag) {
      eventName = flags.event;
      if (!eventName) return fail(`Hookplane bridge: name the ${bridge.name} event (--event preToolUse, ...): its stdin does not`);
      body = JSON.stringify({ ...payload, hookEventName: eventName });
    } else eventName = payload?.hook_event_name;
  } catch {
    return fail(`Hookplane bridge: stdin is not ${bridge.name}'s hook JSON`);
  }
  if (!agent) return fail("Hookplane bridge: no agent named (--agent NAME or HOOKPLANE_AGENT)");
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return fail(`Hookplane bridge: --timeout-ms must be a positive number`);
  const token = process.env.HOOKPLANE_TOKEN ?? stored?.token;
  if (!token) return fail("Hookplane bridge: not signed in (run hookplane login, or set HOOKPLANE_TOKEN to a bridge credential from Settings)");

  const url = `${base}/api/v1/ingest/${kind}`;
  body = withTranscriptUsage(body, eventName, kind);
  let response;
  const headers = { authorization: `Bearer ${token}`, "x-hookplane-agent": agent, ...machineHeaders() };
  // Decided alone from here on: kept for Hookplane (the offline spool) when it is down or failing.
  const offline = () => ({ bridge: kind, agent, payload: JSON.parse(body) });
  try {
    response = await post(url, headers, body, timeoutMs, (req) => watchCaller(req));
  } catch (error) {
    return noAnswer(`Hookplane unreachable at ${base}: ${error.code ?? error.message ?? error}`, { failOpen, eventName, bridge, offline: offline() });
  }
  if (response.status !== 200) {
    const problem = `Hookplane at ${base} answered ${response.status}: ${errorMessageOf(response.text)}`;
    return noAnswer(problem, { failOpen, eventName, bridge, offline: response.status >= 500 ? offline() : undefined });
  }
  // Hookplane answers again: what was decided offline goes to it, from a process of its own.
  if (require("./lib/offline-spool.cjs").hasSpooled()) flushInBackground(base, token);
  writeAndExit(1, response.text.endsWith("\n") ? response.text : `${response.text}\n`, 0);
}

/** `hookplane spool flush` in a detached process that outlives this one: no hook call waits for it. */
function flushInBackground(base, token) {
  const { spawn } = require("node:child_process");
  const child = spawn(process.execPath, [__filename, "spool", "flush"], {
    detached: true,
    stdio: "ignore",
    env: { ...process.env, HOOKPLANE_URL: base, HOOKPLANE_TOKEN: token },
  });
  child.unref();
}

/** `hookplane spool flush`: sends the offline spool (exit 0 when all went, 1 when some wait still). */
async function spoolFlush(flags) {
  const stored = process.env.HOOKPLANE_TOKEN ? undefined : require("./lib/stored-credential.cjs").readStoredCredential();
  const base = (flags.url ?? process.env.HOOKPLANE_URL ?? stored?.url ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  const token = process.env.HOOKPLANE_TOKEN ?? stored?.token;
  if (!token) return writeAndExit(2, "hookplane: not signed in (hookplane login, or HOOKPLANE_TOKEN)\n", 2);
  const { flushSpool } = require("./lib/offline-spool.cjs");
  const { sent, failed } = await flushSpool({ base, headers: { authorization: `Bearer ${token}`, ...machineHeaders() }, exchange });
  writeAndExit(1, `hookplane: sent ${sent} decisions taken offline${failed ? "; the rest wait" : ""}\n`, failed ? 1 : 0);
}

/** The body to send: stdin as it came, plus the transcript's usage at a turn's end. */
function withTranscriptUsage(input, eventName, kind) {
  const bridge = AGENTS[kind];
  if (!bridge.usageEvents.has(eventName)) return input;
  try {
    const payload = JSON.parse(input);
    const { path, agentId, model } = bridge.transcript(payload, eventName);
    if (typeof path !== "string" || path === "") return input;
    const messages = require("./lib/transcript-usage.cjs")[kind](path, agentId, model);
    return messages.length > 0 ? JSON.stringify({ ...payload, hookplane_usage: { transcript: path, messages } }) : input;
  } catch (error) {
    warn(`hookplane: could not read the transcript for its usage: ${error.code ?? error.message}\n`);
    return input;
  }
}

/** The parent's parent pid, from /proc (Linux); undefined elsewhere or when it is gone. */
function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ash", "ksh"]);

/**
 * Drops the request and exits when the caller is gone: the parent changed (it died and this process
 * was re-parented), or the parent is the shell Claude Code started and the shell's own parent
 * changed (Claude Code died; the shell, waiting on this process, lives on). Checked every half
 * second (HOOKPLANE_CALLER_CHECK_MS) on an unref'd timer: an answer in time never waits for it.
 */
function watchCaller(req) {
  const parent = process.ppid;
  let comm = "";
  try {
    comm = readFileSync(`/proc/${parent}/comm`, "utf8").trim();
  } catch {
    /* no /proc: the parent check alone */
  }
  const grandparent = SHELLS.has(comm) ? parentOf(parent) : undefined;
  const check = () => {
    const gone = process.ppid !== parent ? "its parent process exited" : grandparent !== undefined && parentOf(parent) !== grandparent ? "the agent that ran it exited" : undefined;
    if (!gone) return;
    clearInterval(timer);
    req.destroy();
    writeAndExit(2, `hookplane: ${gone}; dropping the request (a pending approval is abandoned)\n`, 2);
  };
  const timer = setInterval(check, Number(process.env.HOOKPLANE_CALLER_CHECK_MS ?? 500));
  timer.unref();
}

function describeChain(name, chain) {
  const unsealed = chain.unsealed ? ` (${chain.unsealed} appended since, not yet sealed)` : "";
  const lines = [];
  if (!chain.firstBroken) {
    const head = chain.head ? `, head #${chain.head.position} ${chain.head.hash}` : "";
    lines.push(`${name}: intact, ${chain.rows} rows${unsealed}${head}`);
    if (chain.anchor) lines.push(`  starts after retention at #${chain.anchor.position} (days before ${chain.anchor.before})`);
    if (chain.removed) lines.push(`  ${chain.removed.rows} rows of ${chain.removed.runs} deleted runs stepped over (chain_gaps)`);
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
  const fail = (message) => writeAndExit(2, `hookplane: ${message}\n`, 2);
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
  writeAndExit(1, text, report.ok ? 0 : 1);
}

function worker() {
  const { spawn } = require("node:child_process");
  const { existsSync } = require("node:fs");
  const { pathToFileURL } = require("node:url");
  const root = `${require("node:path").resolve(__dirname, "..")}/`;
  // The compiled worker (npm run build) when there is one; from the sources through tsx otherwise.
  const compiled = `${root}dist/worker.mjs`;
  const args = existsSync(compiled) ? [compiled] : ["--import", pathToFileURL(require.resolve("tsx")).href, `${root}lib/features/runs/queue/worker-main.ts`];
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
    return writeAndExit(2, `hookplane: ${error.message}\n${USAGE}\n`, 2);
  }
  const [command, sub] = flags.positional;
  if (flags.help || !command) {
    return writeAndExit(1, `${USAGE}\n`, command || flags.help ? 0 : 1);
  }
  if (command === "hook" && Object.hasOwn(AGENTS, sub ?? "")) return hookAgent(sub, flags);
  if (command === "audit" && sub === "verify") return auditVerify(flags);
  if (command === "worker") return worker();
  if (command === "spool" && sub === "flush") return spoolFlush(flags);
  if (command === "login" || command === "logout") {
    const out = { log: (line) => warnOrPrint(1, line), error: (line) => warnOrPrint(2, line) };
    const { login, logout } = require("./lib/login.cjs");
    const code = command === "login" ? await login({ url: flags.url ?? process.env.HOOKPLANE_URL ?? "http://127.0.0.1:3000", name: flags.name, out }) : await logout({ out });
    return writeAndExit(1, "", code);
  }
  // A misspelt hook command must not let a tool call through.
  writeAndExit(2, `hookplane: unknown command "${flags.positional.join(" ")}"\n${USAGE}\n`, 2);
}

main().catch((error) => {
  const failOpen = process.argv.includes("--fail-open");
  writeAndExit(2, `hookplane: ${error?.stack ?? error}\n— ${failOpen ? "allowing because --fail-open is set" : "blocking"}\n`, failOpen ? 0 : 2);
});
