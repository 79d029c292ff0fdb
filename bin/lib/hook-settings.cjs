/**
 * The coding agents' hook settings files as `hookplane install` and `hookplane doctor` read and
 * write them: where each agent reads them (per level), which of their entries are Hookplane's, how
 * an exported bridge command is pinned so it cannot fail open, and the merge that replaces
 * Hookplane's entries and keeps everything else. Pure functions (the file system only in
 * `settingsPath`'s arguments), tested from vitest (hook-settings.test.ts). Loaded only by install
 * and doctor: the hook path never requires it.
 *
 * Why pinning: the export writes `hookplane hook <agent> --agent NAME`. Where `hookplane` is not on
 * PATH the shell answers `hookplane: not found`, exit 127, and for Claude Code, Codex and Gemini CLI
 * only exit 2 blocks: every guarded call would run unguarded. So install writes node's and this
 * CLI's absolute paths instead, and on the events that gate something it adds a fallback that
 * refuses when the CLI cannot run at all (moved, deleted, node gone): `|| exit 2` for the agents
 * that block on exit 2, a deny in JSON for Copilot CLI and Cursor, which read refusals from stdout.
 */
"use strict";
const path = require("node:path");

/** Hookplane's bridge, bare or pinned (`'/usr/bin/node' '/x/bin/hookplane.cjs' hook claude-code`), with or without npx. */
const BRIDGE = /(?:^|[\s'"/])hookplane(?:\.cjs)?['"]?\s+hook\s+(claude-code|codex|gemini-cli|copilot|cursor)\b/;
/** A bridge command whose program is the bare word `hookplane` (or npx hookplane): found on PATH or not at all. */
const BARE = /^\s*(?:npx\s+(?:-y\s+)?)?hookplane\s/;

/**
 * Per coding agent: its file layout (`nested`: `{hooks: {Event: [{matcher, hooks: [entry]}]}}`;
 * `flat`: `{version, hooks: {event: [entry]}}`), the entry's command key, the events that gate
 * something (kept in step with AGENTS in hook.cjs), the tool gate doctor requires, and how
 * a refusal is said when the CLI cannot run (`exit2`, or a JSON deny per event).
 */
const CODING_AGENTS = {
  "claude-code": {
    name: "Claude Code",
    layout: "nested",
    gating: ["PreToolUse", "PermissionRequest", "UserPromptSubmit", "PreSkillShellCommand"],
    toolGate: "PreToolUse",
  },
  codex: {
    name: "Codex",
    layout: "nested",
    gating: ["PreToolUse", "PermissionRequest", "UserPromptSubmit"],
    toolGate: "PreToolUse",
  },
  "gemini-cli": {
    name: "Gemini CLI",
    layout: "nested",
    gating: ["BeforeTool", "BeforeAgent"],
    toolGate: "BeforeTool",
  },
  copilot: {
    name: "Copilot CLI",
    layout: "flat",
    gating: ["preToolUse", "permissionRequest", "userPromptSubmitted"],
    toolGate: "preToolUse",
    deny: (event) => {
      const problem = "the Hookplane CLI could not run: blocking (run hookplane doctor)";
      if (event === "permissionRequest") return { behavior: "deny", message: problem };
      if (event === "userPromptSubmitted") return { decision: "block", reason: problem };
      return { permissionDecision: "deny", permissionDecisionReason: problem };
    },
  },
  cursor: {
    name: "Cursor",
    layout: "flat",
    gating: ["beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "beforeSubmitPrompt", "preToolUse", "subagentStart"],
    toolGate: "beforeShellExecution",
    deny: (event) => {
      const problem = "the Hookplane CLI could not run: blocking (run hookplane doctor)";
      return event === "beforeSubmitPrompt" ? { continue: false, user_message: problem } : { permission: "deny", user_message: problem, agent_message: problem };
    },
  },
};

const LEVELS = ["user", "project", "managed"];

/**
 * Where `kind` reads its hooks at `level` (from each agent's published docs), or an Error saying
 * why there is no such file. `env`: {home, dir (the project), platform, vars (process.env)}.
 */
function settingsPath(kind, level, { home, dir, platform = process.platform, vars = {} }) {
  const mac = platform === "darwin";
  const project = (...parts) => path.join(path.resolve(dir ?? "."), ...parts);
  const none = (why) => new Error(`${CODING_AGENTS[kind].name} has no ${level}-level hook settings${why ? `: ${why}` : ""}`);
  switch (kind) {
    case "claude-code":
      if (level === "user") return path.join(vars.CLAUDE_CONFIG_DIR || path.join(home, ".claude"), "settings.json");
      if (level === "project") return project(".claude", "settings.json");
      if (platform === "win32") return "C:\\Program Files\\ClaudeCode\\managed-settings.json";
      return mac ? "/Library/Application Support/ClaudeCode/managed-settings.json" : "/etc/claude-code/managed-settings.json";
    case "codex":
      if (level === "user") return path.join(vars.CODEX_HOME || path.join(home, ".codex"), "hooks.json");
      if (level === "project") return project(".codex", "hooks.json");
      return none("use its requirements.toml to require hooks, or the user level");
    case "gemini-cli":
      if (level === "user") return path.join(home, ".gemini", "settings.json");
      if (level === "project") return project(".gemini", "settings.json");
      if (vars.GEMINI_CLI_SYSTEM_SETTINGS_PATH) return vars.GEMINI_CLI_SYSTEM_SETTINGS_PATH;
      if (platform === "win32") return "C:\\ProgramData\\gemini-cli\\settings.json";
      return mac ? "/Library/Application Support/GeminiCli/settings.json" : "/etc/gemini-cli/settings.json";
    case "copilot":
      if (level === "project") return project(".github", "hooks", "hookplane.json");
      return none("Copilot CLI reads hooks from the repository's .github/hooks/ (use --level project)");
    case "cursor":
      if (level === "user") return path.join(home, ".cursor", "hooks.json");
      if (level === "project") return project(".cursor", "hooks.json");
      if (platform === "win32") return "C:\\ProgramData\\Cursor\\hooks.json";
      return mac ? "/Library/Application Support/Cursor/hooks.json" : "/etc/cursor/hooks.json";
    default:
      throw new Error(`unknown coding agent ${kind}`);
  }
}

const shellQuote = (text) => `'${String(text).replaceAll("'", "'\\''")}'`;
const commandKey = (entry) => (typeof entry?.command === "string" ? "command" : typeof entry?.bash === "string" ? "bash" : undefined);
const commandOf = (entry) => entry?.[commandKey(entry)];
const isHookplaneEntry = (entry) => typeof commandOf(entry) === "string" && BRIDGE.test(commandOf(entry));

/**
 * The command `hookplane hook ...` pinned to `node` and `cli` (absolute paths, quoted), with the
 * refusal a gating event needs when the CLI cannot run at all.
 */
function pinCommand(command, { kind, event, node, cli }) {
  const pinned = command.replace(BARE, `${shellQuote(node)} ${shellQuote(cli)} `);
  if (!CODING_AGENTS[kind].gating.includes(event)) return pinned;
  const deny = CODING_AGENTS[kind].deny?.(event);
  // With no answer on stdout the CLI did not run (it prints its refusal itself when it runs).
  return deny ? `${pinned} || { printf '%s\\n' ${shellQuote(JSON.stringify(deny))}; exit 0; }` : `${pinned} || exit 2`;
}

/** Every entry of a settings document with its event: [{event, entry, group?}]. */
function entriesOf(document, kind) {
  const out = [];
  const hooks = document?.hooks;
  if (!hooks || typeof hooks !== "object") return out;
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (CODING_AGENTS[kind].layout === "nested") for (const entry of Array.isArray(item?.hooks) ? item.hooks : []) out.push({ event, entry, group: item });
      else out.push({ event, entry: item });
    }
  }
  return out;
}

/** The exported document with every Hookplane bridge command pinned (native command hooks as exported). */
function pinDocument(exported, { kind, node, cli }) {
  const copy = JSON.parse(JSON.stringify(exported));
  for (const { event, entry } of entriesOf(copy, kind)) {
    const key = commandKey(entry);
    if (key && BARE.test(entry[key]) && BRIDGE.test(entry[key])) entry[key] = pinCommand(entry[key], { kind, event, node, cli });
  }
  return copy;
}

const canonical = (value) => JSON.stringify(value, (_key, v) => (v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));

/**
 * `existing` with Hookplane's entries replaced by `pinned`'s: an entry is Hookplane's when its
 * command is the bridge, or it equals one install wrote last time (`previous`, the entries recorded
 * in the install state: native command hooks of an earlier export). Everything else stays where it
 * was; an event or group left empty by the removal goes. Returns {document, changes}.
 */
function mergeSettings(existing, pinned, { kind, previous = [] }) {
  const layout = CODING_AGENTS[kind].layout;
  const document = existing && typeof existing === "object" && !Array.isArray(existing) ? JSON.parse(JSON.stringify(existing)) : {};
  // What install wrote last time, and what it writes now (a native hook already there is not doubled).
  const wroteBefore = new Set([...previous, ...recordedEntries(pinned, kind)].map((p) => `${p.event}\u0000${canonical(p.entry)}`));
  const ours = (event, entry) => isHookplaneEntry(entry) || wroteBefore.has(`${event}\u0000${canonical(entry)}`);
  const changes = new Map();
  const change = (event) => changes.get(event) ?? changes.set(event, { event, removed: 0, added: 0, kept: 0 }).get(event);

  if (document.hooks !== undefined && (typeof document.hooks !== "object" || Array.isArray(document.hooks))) throw new Error("its `hooks` is not an object");
  const hooks = (document.hooks ??= {});
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue;
    const kept = [];
    for (const item of list) {
      if (layout === "flat") {
        if (ours(event, item)) change(event).removed++;
        else kept.push(item), change(event).kept++;
        continue;
      }
      if (!Array.isArray(item?.hooks)) {
        kept.push(item);
        continue;
      }
      const rest = item.hooks.filter((entry) => !ours(event, entry));
      change(event).removed += item.hooks.length - rest.length;
      change(event).kept += rest.length;
      if (rest.length > 0) kept.push(rest.length === item.hooks.length ? item : { ...item, hooks: rest });
    }
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  for (const [event, list] of Object.entries(pinned.hooks ?? {})) {
    if (!Array.isArray(list) || list.length === 0) continue;
    hooks[event] = [...(hooks[event] ?? []), ...list];
    change(event).added += layout === "flat" ? list.length : list.reduce((n, group) => n + (group.hooks?.length ?? 0), 0);
  }
  // The other top-level keys of the export (`version`) where the file has none.
  for (const [key, value] of Object.entries(pinned)) if (key !== "hooks" && document[key] === undefined) document[key] = value;
  if (Object.keys(hooks).length === 0 && existing?.hooks === undefined) delete document.hooks;
  return { document, changes: [...changes.values()].filter((c) => c.removed > 0 || c.added > 0) };
}

/** The entries of `pinned` as the install state records them (what to recognise as ours next time). */
function recordedEntries(pinned, kind) {
  return entriesOf(pinned, kind).map(({ event, entry }) => ({ event, entry }));
}

/** One line per changed event: `PreToolUse: -1 +1 Hookplane hook(s), 2 other(s) kept`. */
function describeChanges(changes) {
  if (changes.length === 0) return ["no change"];
  return changes.map((c) => `${c.event}: ${c.removed ? `-${c.removed} ` : ""}${c.added ? `+${c.added} ` : ""}Hookplane hook${c.removed + c.added === 1 ? "" : "s"}${c.kept ? `, ${c.kept} other${c.kept === 1 ? "" : "s"} kept` : ""}`);
}

/** The program a command runs: `{bare: true}` for `hookplane` looked up on PATH, else the quoted or plain first word. */
function programOf(command) {
  if (BARE.test(command)) return { bare: true, program: "hookplane" };
  const quoted = /^\s*'((?:[^']|'\\'')*)'(?:\s+'((?:[^']|'\\'')*)')?/.exec(command);
  if (quoted) return { bare: false, program: quoted[1].replaceAll("'\\''", "'"), script: quoted[2]?.replaceAll("'\\''", "'") };
  const [first, second] = command.trim().split(/\s+/);
  return { bare: false, program: first, script: second && !second.startsWith("-") && second !== "hook" ? second : undefined };
}

/** The absolute path `name` resolves to on `PATH` (executable files only), or undefined. */
function findOnPath(name, pathVar, isExecutable) {
  for (const dir of String(pathVar ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

module.exports = {
  BRIDGE,
  CODING_AGENTS,
  LEVELS,
  canonical,
  describeChanges,
  entriesOf,
  findOnPath,
  isHookplaneEntry,
  mergeSettings,
  pinCommand,
  pinDocument,
  programOf,
  recordedEntries,
  settingsPath,
  shellQuote,
};
