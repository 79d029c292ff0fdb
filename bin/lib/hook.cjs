/**
 * `hookplane hook claude-code|codex|gemini-cli|copilot|cursor --agent NAME`: reads the coding
 * agent's hook payload from stdin, asks Hookplane, prints its answer. It runs before every tool
 * call, so what only some calls need (the transcript readers at a turn's end, the offline spool's
 * writer and its flush in the background) loads only when they need it.
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
const { readFileSync } = require("node:fs");
const { readStdin, warn, writeAndExit } = require("./direct-stdio.cjs");
const { errorMessageOf, machineHeaders, post } = require("./http-exchange.cjs");

const DEFAULT_TIMEOUT_MS = 590_000; // under Claude Code's default hook timeout of 600 s

/**
 * The coding agents the bridge speaks for. `gating`: events where exit 2 refuses something the
 * agent was about to do; only there does no answer block. `keepsWorking`: events where exit 2
 * would send the agent back to work instead of letting it stop. `usageEvents`: the turn ends after
 * which its transcript holds finished model calls; `transcript`: where that transcript is (its
 * reader, by the same key, is in transcript-usage.cjs).
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
    settle: (path, payload, eventName) => require("./copilot-events-settle.cjs").settledEventsText(path, eventName, payload.timestamp),
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

/**
 * No answer from Hookplane: block (exit 2) unless it is to fail open, or where blocking makes no
 * sense. Whether to fail open: the agent's fail mode as Hookplane last said it (`policy`, which
 * overrules the flag either way), else `--fail-open`. With `offline` (Hookplane unreachable or
 * failing, not refusing), the decision taken alone is kept in the offline spool, with the mode it
 * applied and where that came from, and sent once Hookplane answers again.
 */
function noAnswer(problem, { failOpen, eventName, bridge, offline, policy, agent }) {
  const neverBlock = eventName !== undefined && !bridge.gating.has(eventName);
  const open = policy ? policy === "open" : failOpen;
  if (offline) {
    const decision = open || neverBlock ? "allowed" : "blocked";
    const failModeFrom = policy ? "policy" : failOpen ? "flag" : "default";
    require("./offline-spool.cjs").spoolDecision({ ...offline, decision, reason: problem, failMode: open ? "open" : "closed", failModeFrom });
  }
  if (open || neverBlock) {
    const why = open
      ? policy
        ? `allowing: ${agent}'s fail mode in Hookplane is open`
        : "allowing because --fail-open is set"
      : bridge.keepsWorking.has(eventName)
        ? `not blocking ${eventName}: exit 2 there would keep ${bridge.name} working`
        : `not blocking ${eventName}: it gates nothing`;
    writeAndExit(2, `hookplane: ${problem} — ${why}\n`, 0);
    return;
  }
  const why = policy
    ? `blocking: ${agent}'s fail mode in Hookplane is closed${failOpen ? " (it overrules --fail-open)" : ""}`
    : "blocking because --fail-open is not set";
  const refusal = bridge.refusal?.(eventName, `${problem} — ${why}`);
  if (refusal) {
    warn(`${problem} — ${why}\n`);
    writeAndExit(1, `${JSON.stringify(refusal)}\n`, 0);
    return;
  }
  writeAndExit(2, `${problem} — ${why}\n`, 2);
}

async function hookAgent(kind, flags) {
  let bridge = AGENTS[kind];
  const failOpen = Boolean(flags.failOpen);
  // HOOKPLANE_TOKEN, else what `hookplane login` stored for this OS user.
  const stored = process.env.HOOKPLANE_TOKEN ? undefined : require("./stored-credential.cjs").readStoredCredential();
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
  // Decided alone from here on: kept for Hookplane (the offline spool) when it is down or failing,
  // under the agent's fail mode as Hookplane last said it (fail-mode.cjs).
  const offline = () => ({ bridge: kind, agent, payload: JSON.parse(body) });
  const policy = () => require("./fail-mode.cjs").keptFailMode(base, agent, token);
  try {
    response = await post(url, headers, body, timeoutMs, (req) => watchCaller(req));
  } catch (error) {
    return noAnswer(`Hookplane unreachable at ${base}: ${error.code ?? error.message ?? error}`, { failOpen, eventName, bridge, offline: offline(), policy: policy(), agent });
  }
  if (response.status !== 200) {
    const problem = `Hookplane at ${base} answered ${response.status}: ${errorMessageOf(response.text)}`;
    // A 4xx is Hookplane's answer about the request (a revoked credential, an unknown agent), not
    // an outage: not spooled, and a fail-open policy does not open it (a fail-closed one still
    // overrules --fail-open).
    const failing = response.status >= 500;
    const kept = policy();
    return noAnswer(problem, { failOpen, eventName, bridge, offline: failing ? offline() : undefined, policy: failing || kept === "closed" ? kept : undefined, agent });
  }
  const said = response.headers?.get("x-hookplane-fail-mode");
  if (said) require("./fail-mode.cjs").keepFailMode(base, agent, token, said);
  // Hookplane answers again: what was decided offline goes to it, from a process of its own.
  if (require("./offline-spool.cjs").hasSpooled()) flushInBackground(base, token);
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
  const cli = require("node:path").join(__dirname, "..", "hookplane.cjs");
  const child = spawn(process.execPath, [cli, "spool", "flush"], {
    detached: true,
    stdio: "ignore",
    env: { ...process.env, HOOKPLANE_URL: base, HOOKPLANE_TOKEN: token },
  });
  child.unref();
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
    const messages = require("./transcript-usage.cjs")[kind](path, agentId, model);
    // Claude Code's transcript also says what the developer's own hooks blocked on this machine.
    const blocks = kind === "claude-code" ? require("./transcript-hook-blocks.cjs").claudeTranscriptHookBlocks(path) : [];
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

module.exports = { AGENTS, hookAgent };
