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
 *   hookplane login [--url URL] [--name MACHINE] | hookplane login --with-token [--url URL] | hookplane logout
 *   hookplane install claude-code|codex|gemini-cli|copilot|cursor --agent NAME [--level user|project|managed] [--dir DIR] [--url URL] [--dry-run]
 *   hookplane doctor [--agent NAME] [--coding-agent AGENT] [--dir DIR] [--json]
 *   hookplane audit verify [--json] [--url URL]
 *   hookplane audit verify --bundle FILE [--public-key KEY] [--trust-unsigned] [--json]
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
 *
 * `install` and `doctor` (lib/install.cjs, lib/doctor.cjs, lib/hook-settings.cjs) load only for
 * those commands. install writes the agent's hooks into a coding agent's settings with node's and
 * this file's absolute paths, never a bare `hookplane`: where that is not on PATH the shell exits
 * 127, which Claude Code, Codex and Gemini CLI do not treat as a refusal, so the guard would be off.
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
  hookplane login --with-token [--url URL]
      Stores the bridge credential read from stdin (checked with Hookplane first) for this OS user,
      as login does, without a browser: for CI, where an agent may not pass HOOKPLANE_TOKEN to its
      hooks (Gemini CLI with GITHUB_SHA set strips every variable named like a secret).
  hookplane logout
      Revokes that credential and forgets it.
  hookplane install claude-code|codex|gemini-cli|copilot|cursor --agent NAME [--level user|project|managed]
                    [--dir PROJECT_DIR] [--url URL] [--dry-run]
      Fetches the agent's hooks for that coding agent from Hookplane and merges them into its
      settings file at that level (default: user; project with --dir; Copilot CLI: project only),
      keeping everything else in it; the old file is kept as a .bak. The hooks run this CLI by its
      absolute path and block when it cannot run: a bare \`hookplane\` not on PATH would let every
      call through. Records the install on the server (the agent's page lists the machine).
      --dry-run prints the file it would write. Exit 0 done, 1 written but not recorded, 2 not written.
  hookplane doctor [--agent NAME] [--coding-agent AGENT] [--dir PROJECT_DIR] [--json]
      Checks this machine: node, the CLI, the credential, every settings file with Hookplane's
      hooks (gating events bound, commands found, drift from the current export) and a test event
      decided through the installed hook. Exit 0 all ok, 1 some FAIL, 2 could not check.
  hookplane spool flush
      Sends the decisions hook took alone while Hookplane was unreachable (it does so by itself
      once Hookplane answers again).
  hookplane audit verify [--json] [--url URL]
      Seals and checks the hash chains of the audit log and the hook ledger and their signed
      heads; names the first broken row. Exit 0 intact, 1 broken, 2 could not check.
      Env: HOOKPLANE_URL, HOOKPLANE_TOKEN (an admin token).
  hookplane audit verify --bundle FILE [--public-key KEY] [--trust-unsigned] [--json]
      Checks a chain's bundle (GET /api/v1/audit/bundle) offline, with no server: every row's
      hash, every signed head, gap and anchor; names the first thing that does not verify.
      KEY: the instance's /.well-known/hookplane-ledger-keys document (a file or the JSON), a
      JWK, a PEM key or the raw key as base64url; without it the signatures are checked against
      the key inside the bundle, which shows it is whole but not whose it is. --trust-unsigned
      accepts gaps and anchors written before the instance signed them. Exit codes as above.
  hookplane worker
      Works queued runs (needs DATABASE_URL; see npm run worker).`;

const DEFAULT_TIMEOUT_MS = 590_000; // under Claude Code's default hook timeout of 600 s

function parseArgs(argv) {
  const flags = { positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--fail-open") flags.failOpen = true;
    else if (arg === "--json") flags.json = true;
    else if (arg === "--trust-unsigned") flags.trustUnsigned = true;
    else if (arg === "--dry-run") flags.dryRun = true;
    else if (arg === "--with-token") flags.withToken = true;
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
  // Gemini CLI in GitHub Actions gives hooks a stripped environment without CI but with GITHUB_ENV.
  if ((process.env.CI && !/^(0|false)$/i.test(process.env.CI)) || process.env.GITHUB_ENV) headers["x-hookplane-ci"] = "1";
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
    // PreSkillShellCommand (2.1.332): a skill's shell line, decided by tool.pre hooks like a Bash call.
    gating: new Set(["PreToolUse", "PermissionRequest", "UserPromptSubmit", "PreSkillShellCommand"]),
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
    gating: new Set(["preToolUse", "permissionRequest", "userPromptSubmitted"]),
    keepsWorking: new Set(["agentStop", "subagentStop"]),
    // agentStop comes before Copilot writes that turn's usage to its events file; sessionEnd after
    // it, and names no file: the session's own under COPILOT_HOME (default ~/.copilot).
    usageEvents: new Set(["agentStop", "sessionEnd"]),
    transcript: (payload) => ({ path: payload.transcriptPath ?? copilotEventsFile(payload.sessionId) }),
    // Its events file lags behind its hooks: wait for this hook's own line (copilot-events-settle.cjs).
    settle: (path, payload, eventName) => require("./lib/copilot-events-settle.cjs").settledEventsText(path, eventName, payload.timestamp),
    // Copilot reads a deny from JSON; its exit codes are not a documented way to refuse.
    refusal: (eventName, problem) =>
      eventName === "preToolUse"
        ? { permissionDecision: "deny", permissionDecisionReason: problem }
        : eventName === "permissionRequest"
          ? { behavior: "deny", message: problem }
          : eventName === "userPromptSubmitted"
            ? { decision: "block", reason: problem }
            : undefined,
  },
  cursor: {
    name: "Cursor",
    gating: new Set(["beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "beforeSubmitPrompt", "preToolUse", "subagentStart"]),
    keepsWorking: new Set(["stop", "subagentStop"]),
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

/** Copilot CLI's events file of a session: `$COPILOT_HOME/session-state/<id>/events.jsonl`. */
function copilotEventsFile(sessionId) {
  if (typeof sessionId !== "string" || !/^[\w.-]+$/.test(sessionId)) return undefined;
  const path = require("node:path");
  const home = process.env.COPILOT_HOME || path.join(require("node:os").homedir(), ".copilot");
  return path.join(home, "session-state", sessionId, "events.jsonl");
}

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

/**
 * Cursor running the hooks of .claude/settings*.json: Claude Code's command with Cursor's payload
 * (`conversation_id`, no `session_id`) and either agent's event name. Its gates are Cursor's, and
 * a refusal is exit 2 with the reason on stderr, which both agents read as a block.
 */
const CURSOR_EVENT_OF_CLAUDE = { PreToolUse: "preToolUse", UserPromptSubmit: "beforeSubmitPrompt", Stop: "stop", SubagentStart: "subagentStart", SubagentStop: "subagentStop" };
const CURSOR_VIA_CLAUDE = { name: "Cursor (running Claude Code's hooks)", gating: AGENTS.cursor.gating, keepsWorking: AGENTS.cursor.keepsWorking, usageEvents: new Set() };
/**
 * VS Code's agent hooks, which run Claude Code's settings files, send `hookEventName` and
 * `sessionId` where Claude Code sends `hook_event_name` and `session_id` (its hooks reference, and
 * the extension's releases before it switched to Claude Code's names); the rest is snake_case.
 */
const isCamelCasePayload = (payload) => typeof payload?.hookEventName === "string" && payload.hook_event_name === undefined && typeof payload.sessionId === "string" && payload.session_id === undefined;
/**
 * Qwen Code runs Claude Code's hooks with its own payload shape and applies less of the answer (no
 * updatedInput): it sets QWEN_CODE_SESSION_ID for its hooks. Compared with the payload's session,
 * so a Claude Code started from a Qwen shell (the variable inherited) is still Claude Code.
 */
const isQwenCall = (payload) => typeof payload?.session_id === "string" && process.env.QWEN_CODE_SESSION_ID === payload.session_id;
const isCursorPayload = (payload) => typeof payload?.conversation_id === "string" && payload.session_id === undefined;

async function hookAgent(kind, flags) {
  let bridge = AGENTS[kind];
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
    } else if (kind === "claude-code" && isCamelCasePayload(payload)) {
      // VS Code's agent mode (running .claude/settings.json hooks) names these two in camelCase.
      const { hookEventName, sessionId, ...rest } = payload;
      eventName = hookEventName;
      body = JSON.stringify({ hook_event_name: hookEventName, session_id: sessionId, ...rest });
    } else if (kind === "claude-code" && isQwenCall(payload)) {
      eventName = payload.hook_event_name;
      body = JSON.stringify({ ...payload, hookplane_runtime: "qwen-code" });
    } else eventName = payload?.hook_event_name;
    if (kind === "claude-code" && isCursorPayload(payload)) {
      bridge = CURSOR_VIA_CLAUDE;
      eventName = CURSOR_EVENT_OF_CLAUDE[eventName] ?? eventName;
    }
  } catch {
    return fail(`Hookplane bridge: stdin is not ${bridge.name}'s hook JSON`);
  }
  if (!agent) return fail("Hookplane bridge: no agent named (--agent NAME or HOOKPLANE_AGENT)");
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return fail(`Hookplane bridge: --timeout-ms must be a positive number`);
  const token = process.env.HOOKPLANE_TOKEN ?? stored?.token;
  if (!token) return fail("Hookplane bridge: not signed in (run hookplane login, or set HOOKPLANE_TOKEN to a bridge credential from Settings)");

  const url = `${base}/api/v1/ingest/${kind}`;
  body = await withTranscriptUsage(body, eventName, kind);
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
  if (bridge === CURSOR_VIA_CLAUDE) {
    const refusal = refusalOf(response.text);
    if (refusal) return writeAndExit(2, `${refusal}\n`, 2);
  }
  writeAndExit(1, response.text.endsWith("\n") ? response.text : `${response.text}\n`, 0);
}

/** The reason of a Cursor answer that refuses (a gate's deny, a prompt not to continue), else undefined. */
function refusalOf(text) {
  try {
    const answer = JSON.parse(text);
    if (answer?.permission === "deny") return answer.agent_message ?? answer.user_message ?? "Blocked by Hookplane";
    if (answer?.continue === false) return answer.user_message ?? "Blocked by Hookplane";
  } catch {
    // not JSON: printed as it came
  }
  return undefined;
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

/** The body to send: stdin as it came, plus the transcript's usage (and, for Claude Code, its local hooks' blocks) at a turn's end. */
async function withTranscriptUsage(input, eventName, kind) {
  const bridge = AGENTS[kind];
  if (!bridge.usageEvents.has(eventName)) return input;
  try {
    const payload = JSON.parse(input);
    const { path, agentId, model } = bridge.transcript(payload, eventName);
    if (typeof path !== "string" || path === "") return input;
    await bridge.settle?.(path, payload, eventName);
    const messages = require("./lib/transcript-usage.cjs")[kind](path, agentId, model);
    // Claude Code's transcript also says what the developer's own hooks blocked on this machine.
    const blocks = kind === "claude-code" ? require("./lib/transcript-hook-blocks.cjs").claudeTranscriptHookBlocks(path) : [];
    if (messages.length === 0 && blocks.length === 0) return input;
    return JSON.stringify({ ...payload, ...(messages.length > 0 ? { hookplane_usage: { transcript: path, messages } } : {}), ...(blocks.length > 0 ? { hookplane_local_blocks: blocks } : {}) });
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
  const signed = chain.signedHead;
  if (!chain.firstBroken) {
    const head = chain.head ? `, head #${chain.head.position} ${chain.head.hash}` : "";
    lines.push(`${name}: intact, ${chain.rows} rows${unsealed}${head}`);
    if (chain.anchor) lines.push(`  starts after retention at #${chain.anchor.position} (days before ${chain.anchor.before})`);
    if (chain.removed) lines.push(`  ${chain.removed.rows} rows of ${chain.removed.runs} deleted runs stepped over (chain_gaps)`);
    if (signed) {
      const heads = chain.signatures ? `${chain.signatures.heads} signed heads verified; ` : "";
      lines.push(`  ${heads}newest signed head #${signed.position}, signed at ${signed.signedAt} by key ${signed.keyId}: ${signed.valid ? "valid" : "DOES NOT VERIFY"}`);
    }
    if (chain.signatures?.unsigned) lines.push(`  ${chain.signatures.unsigned} gaps or anchors from before signing, taken on the database's word`);
    return lines;
  }
  const broken = chain.firstBroken;
  const row = broken.id === null || broken.id === undefined ? "" : ` row id ${broken.id},`;
  lines.push(`${name}: BROKEN at ${broken.table}${row} position ${broken.position}: ${broken.problem}`);
  lines.push(`  expected hash ${broken.expectedHash || "(none: the row should not be there)"}`);
  lines.push(`  stored hash   ${broken.storedHash || "(none)"}`);
  lines.push(`  ${chain.rows} rows in the chain${unsealed}`);
  return lines;
}

/**
 * `hookplane audit verify --bundle FILE`: offline, nothing but node and the file (and the key).
 * Exit 0 when the bundle verifies, 1 when something in it does not, 2 when it could not check.
 */
async function auditVerifyBundle(flags) {
  const { CannotCheck, describeBundle, verifyBundleFile } = require("./lib/chain-bundle-verify.cjs");
  let report;
  try {
    report = await verifyBundleFile(flags.bundle, { publicKey: flags["public-key"], trustUnsigned: Boolean(flags.trustUnsigned) });
  } catch (error) {
    if (error instanceof CannotCheck) return writeAndExit(2, `hookplane: could not check ${flags.bundle}: ${error.message}\n`, 2);
    throw error;
  }
  const text = flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${describeBundle(report, flags.bundle)}\n`;
  writeAndExit(1, text, report.ok ? 0 : 1);
}

/** `hookplane audit verify`: exit 0 when both chains hold, 1 when one is broken, 2 when it could not check. */
async function auditVerify(flags) {
  if (flags.bundle !== undefined) return auditVerifyBundle(flags);
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
  const args = existsSync(compiled) ? [compiled] : ["--import", pathToFileURL(require.resolve("tsx")).href, `${root}worker.ts`];
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
  if (command === "install" || command === "doctor") {
    const out = { log: (line) => warnOrPrint(1, line), error: (line) => warnOrPrint(2, line) };
    const ctx = { exchange, machineHeaders, cli: __filename, out };
    const code = command === "install" ? await require("./lib/install.cjs").install(flags, ctx) : await require("./lib/doctor.cjs").doctor(flags, ctx);
    return writeAndExit(1, "", code);
  }
  if (command === "login" || command === "logout") {
    const out = { log: (line) => warnOrPrint(1, line), error: (line) => warnOrPrint(2, line) };
    const { login, logout } = require("./lib/login.cjs");
    const url = flags.url ?? process.env.HOOKPLANE_URL ?? "http://127.0.0.1:3000";
    if (command === "login" && flags.withToken) {
      const { loginWithToken } = require("./lib/login.cjs");
      return writeAndExit(1, "", await loginWithToken({ url, token: (await readStdin()).trim(), out, headers: machineHeaders() }));
    }
    const code = command === "login" ? await login({ url, name: flags.name, out }) : await logout({ out });
    return writeAndExit(1, "", code);
  }
  // A misspelt hook command must not let a tool call through.
  writeAndExit(2, `hookplane: unknown command "${flags.positional.join(" ")}"\n${USAGE}\n`, 2);
}

main().catch((error) => {
  const failOpen = process.argv.includes("--fail-open");
  writeAndExit(2, `hookplane: ${error?.stack ?? error}\n— ${failOpen ? "allowing because --fail-open is set" : "blocking"}\n`, failOpen ? 0 : 2);
});
