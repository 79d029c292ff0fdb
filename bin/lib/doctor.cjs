/**
 * `hookplane doctor`: checks this machine end to end and prints each check, ok or FAIL, with a fix:
 * node and this CLI; the credential (a cheap authenticated ingest-role GET: the settings route);
 * every coding agent settings file with Hookplane's hooks in it: the gating events the agent's
 * export binds are bound, every command can run (a bare `hookplane` not on PATH fails OPEN: exit
 * 127 does not block), no drift from the current export; and a test event decided: a synthetic
 * tool gate for `true` (PreToolUse, BeforeTool, Copilot's preToolUse, Cursor's
 * beforeShellExecution) sent through the installed command itself, in a session whose id starts
 * `hookplane-doctor-` (the run it makes is ended at once, and is recognisable by that id).
 * Exit 0 all ok, 1 some FAIL, 2 could not check (Hookplane unreachable, nothing to check).
 */
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { spawnSync } = require("node:child_process");
const settings = require("./hook-settings.cjs");
const { connection, fetchSettings, readInstallState, readSettingsFile } = require("./install.cjs");

const isExecutable = (file) => {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
};

/** The test event per coding agent whose hook protocol doctor speaks: a harmless shell call, then the session's end. */
const TEST_EVENTS = {
  "claude-code": (session, cwd) => ({
    pre: { session_id: session, cwd, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "true" }, tool_use_id: `${session}-1` },
    end: { session_id: session, cwd, hook_event_name: "SessionEnd", reason: "other" },
  }),
  codex: (session, cwd) => ({
    pre: { session_id: session, cwd, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "true" }, tool_use_id: `${session}-1` },
    end: { session_id: session, cwd, hook_event_name: "SessionEnd", reason: "other" },
  }),
  "gemini-cli": (session, cwd) => ({
    pre: { session_id: session, cwd, hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command: "true" } },
    end: { session_id: session, cwd, hook_event_name: "SessionEnd", reason: "exit" },
  }),
  // Copilot's stdin names no event: the installed preToolUse command says --event, the end says it here.
  copilot: (session, cwd) => ({
    pre: { sessionId: session, timestamp: Date.now(), cwd, toolName: "bash", toolArgs: { command: "true", description: "hookplane doctor" } },
    end: { sessionId: session, timestamp: Date.now(), cwd, reason: "complete" },
    endArgs: ["--event", "sessionEnd"],
  }),
  cursor: (session, cwd) => ({
    pre: { conversation_id: session, generation_id: `${session}-1`, hook_event_name: "beforeShellExecution", command: "true", cwd, workspace_roots: [cwd] },
    end: { conversation_id: session, hook_event_name: "sessionEnd", reason: "completed", workspace_roots: [cwd] },
  }),
};

/** The decision in any coding agent's answer to its tool gate ({} is an allow). */
function decisionOf(answer) {
  return answer?.hookSpecificOutput?.permissionDecision ?? answer?.permissionDecision ?? answer?.permission ?? answer?.decision ?? "allow";
}

/** Resolves the exit code. `ctx`: {exchange, machineHeaders, cli, out: {log, error}}. */
async function doctor(flags, ctx) {
  const checks = [];
  const check = (name, ok, detail, fix) => checks.push({ name, ok, detail, ...(ok ? {} : { fix }) });
  let couldNotCheck = false;

  check("node", true, `${process.execPath} ${process.version}`);
  check("hookplane CLI", fs.existsSync(ctx.cli), ctx.cli, "reinstall Hookplane");
  const onPath = settings.findOnPath("hookplane", process.env.PATH, isExecutable);
  check("hookplane on PATH", true, onPath ? onPath : "not on PATH (fine for hooks that `hookplane install` wrote: they name the CLI by its absolute path)");

  const kinds = flags["coding-agent"] ? [flags["coding-agent"]] : Object.keys(settings.CODING_AGENTS);
  for (const kind of kinds) {
    if (!Object.hasOwn(settings.CODING_AGENTS, kind)) {
      ctx.out.error(`hookplane doctor: --coding-agent is one of ${Object.keys(settings.CODING_AGENTS).join(", ")}`);
      return 2;
    }
  }

  // The settings files with Hookplane's hooks in them, at every level of every coding agent asked about.
  const state = readInstallState();
  const files = [];
  for (const kind of kinds) {
    for (const level of settings.LEVELS) {
      let file;
      try {
        file = settings.settingsPath(kind, level, { home: os.homedir(), dir: flags.dir, vars: process.env });
      } catch {
        continue;
      }
      if (file instanceof Error || !fs.existsSync(file)) continue;
      let document;
      try {
        document = readSettingsFile(file).document;
      } catch (error) {
        check(`${kind} ${level} settings`, false, error.message, "fix the JSON, then run hookplane install again");
        continue;
      }
      const ours = settings.entriesOf(document, kind).filter(({ entry }) => settings.isHookplaneEntry(entry));
      if (ours.length === 0) continue;
      const agentName = /--agent(?:=|\s+)["']?([^\s"']+)/.exec(ours.map(({ entry }) => entry.command ?? entry.bash).join(" "))?.[1];
      if (flags.agent && agentName !== flags.agent) continue;
      files.push({ kind, level, file, document, ours, agent: agentName, installed: state[file] });
    }
  }

  const { base, token, source } = connection(flags);
  let credentialOk = false;
  if (!token) {
    check("credential", false, "none: HOOKPLANE_TOKEN is not set and hookplane login stored none", "run hookplane login");
  } else {
    const probe = await fetchSettings({ base, token, kind: files[0]?.kind ?? "claude-code", agent: flags.agent ?? files[0]?.agent ?? "hookplane-doctor", exchange: ctx.exchange, headers: ctx.machineHeaders() });
    if (probe.unreachable) {
      check("credential", false, probe.problem, probe.fix);
      couldNotCheck = true;
    } else if (probe.ok || probe.status === 404) {
      credentialOk = true;
      check("credential", true, `accepted by ${base} (${source})`);
    } else check("credential", false, probe.problem, probe.fix);
  }

  if (files.length === 0) {
    check("hook settings", false, `no settings file with Hookplane's hooks${flags.agent ? ` for agent ${flags.agent}` : ""} (${kinds.join(", ")}; user, project${flags.dir ? ` in ${flags.dir}` : " in this folder"} and managed levels)`, `hookplane install ${kinds.length === 1 ? kinds[0] : "<coding agent>"} --agent ${flags.agent ?? "NAME"}`);
  }

  for (const found of files) {
    const { kind, level, file, ours } = found;
    const agentName = found.agent ?? flags.agent;
    const label = `${settings.CODING_AGENTS[kind].name} ${level} (${file})`;
    const reinstall = `hookplane install ${kind} --agent ${agentName ?? "NAME"} --level ${level}${level === "project" ? ` --dir ${path.dirname(path.dirname(file))}` : ""}`;
    const bound = new Set(ours.map(({ event }) => event));

    // Every command must run, or fail closed when it cannot.
    const problems = [];
    for (const { event, entry } of ours) {
      const command = entry.command ?? entry.bash;
      const program = settings.programOf(command);
      const gating = settings.CODING_AGENTS[kind].gating.includes(event);
      if (program.bare) {
        if (!settings.findOnPath("hookplane", process.env.PATH, isExecutable)) {
          problems.push(`${event}: \`hookplane\` is not on PATH: the shell exits 127, which ${settings.CODING_AGENTS[kind].name} does not treat as a refusal${gating ? ", so every call this hook guards runs unguarded (fails OPEN)" : ""}`);
        }
        continue;
      }
      const missing = [program.program, program.script].filter((p) => p && path.isAbsolute(p) && !fs.existsSync(p));
      if (missing.length > 0) problems.push(`${event}: ${missing.join(" and ")} not found${gating ? " (the hook blocks every call until fixed)" : ""}`);
    }
    check(`${label}: commands run`, problems.length === 0, problems.length === 0 ? `${ours.length} Hookplane hook(s), each runnable` : problems.join("; "), reinstall);

    // The export of now: drift, and the gating events it binds.
    let fresh;
    if (credentialOk && agentName) {
      const fetched = await fetchSettings({ base, token, kind, agent: agentName, exchange: ctx.exchange, headers: ctx.machineHeaders() });
      if (fetched.ok) fresh = fetched;
      else check(`${label}: current export`, false, fetched.problem, fetched.fix);
    }
    const gating = settings.CODING_AGENTS[kind].gating;
    const expected = fresh ? settings.entriesOf(JSON.parse(fresh.text), kind).map(({ event }) => event) : [settings.CODING_AGENTS[kind].toolGate];
    const unbound = gating.filter((event) => expected.includes(event) && !bound.has(event));
    check(`${label}: gating events bound`, unbound.length === 0, unbound.length === 0 ? `${gating.filter((e) => bound.has(e)).join(", ") || "none"}` : `not bound: ${unbound.join(", ")} (those calls go unguarded)`, reinstall);
    if (fresh) {
      let drifted;
      if (found.installed?.sha256) drifted = found.installed.sha256 !== fresh.sha256;
      else {
        // Installed by hand or elsewhere: compare Hookplane's bridge entries with the export's, pinned alike.
        const pinned = settings.pinDocument(JSON.parse(fresh.text), { kind, node: process.execPath, cli: ctx.cli });
        const want = settings.entriesOf(pinned, kind).filter(({ entry }) => settings.isHookplaneEntry(entry)).map(({ event, entry }) => settings.canonical([event, entry])).sort();
        const have = ours.map(({ event, entry }) => settings.canonical([event, entry])).sort();
        drifted = settings.canonical(want) !== settings.canonical(have);
      }
      check(`${label}: matches the current export`, !drifted, drifted ? `drifted: agent ${agentName}'s hooks changed on ${base} since this file was written` : `agent ${agentName}, sha256 ${fresh.sha256.slice(0, 12)}`, reinstall);
    }

    // A test event through the installed command itself.
    const events = TEST_EVENTS[kind];
    const gate = ours.find(({ event }) => event === settings.CODING_AGENTS[kind].toolGate);
    if (!events || !gate) {
      check(`${label}: test event`, true, events ? "skipped: no tool gate installed" : `skipped: doctor does not send ${settings.CODING_AGENTS[kind].name} test events yet`);
      continue;
    }
    if (!credentialOk) {
      check(`${label}: test event`, false, "not sent: the credential does not work", "run hookplane login");
      continue;
    }
    const session = `hookplane-doctor-${require("node:crypto").randomBytes(6).toString("hex")}`;
    const { pre, end, endArgs = [] } = events(session, process.cwd());
    const command = gate.entry.command ?? gate.entry.bash;
    const ran = spawnSync("/bin/sh", ["-c", command], { input: JSON.stringify(pre), encoding: "utf8", timeout: 30_000, env: { ...process.env, HOOKPLANE_URL: base, HOOKPLANE_TIMEOUT_MS: "20000" } });
    let answer;
    try {
      answer = JSON.parse(ran.stdout);
    } catch {
      answer = undefined;
    }
    const decision = decisionOf(answer);
    check(
      `${label}: test event`,
      ran.status === 0 && answer !== undefined,
      ran.status === 0 && answer !== undefined ? `${gate.event} \`true\` answered (${decision}) in session ${session}` : `the installed ${gate.event} command exited ${ran.status ?? ran.signal}: ${(ran.stderr || ran.stdout || "").trim().slice(0, 300)}`,
      reinstall,
    );
    // The session ends at once: no run is left open by the check.
    spawnSync(process.execPath, [ctx.cli, "hook", kind, "--agent", agentName ?? "", ...endArgs, "--timeout-ms", "10000"], { input: JSON.stringify(end), encoding: "utf8", timeout: 15_000, env: { ...process.env, HOOKPLANE_URL: base } });
  }

  const failed = checks.filter((c) => !c.ok);
  const code = couldNotCheck ? 2 : failed.length > 0 ? 1 : 0;
  if (flags.json) ctx.out.log(JSON.stringify({ ok: code === 0, checks }, null, 2));
  else {
    for (const c of checks) {
      ctx.out.log(`${c.ok ? "ok  " : "FAIL"} ${c.name}: ${c.detail}`);
      if (!c.ok) ctx.out.log(`     fix: ${c.fix}`);
    }
    ctx.out.log(code === 0 ? "All checks passed." : code === 1 ? `${failed.length} check(s) failed.` : "Could not check everything (see above).");
  }
  return code;
}

module.exports = { doctor };
