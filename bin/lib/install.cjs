/**
 * `hookplane install <coding agent> --agent NAME`: fetches the agent's settings for that coding
 * agent from Hookplane (GET /api/v1/ingest/<coding agent>/settings, with the bridge credential),
 * pins every bridge command to node's and this CLI's absolute paths with a refusal when the CLI
 * cannot run (hook-settings.cjs says why: a bare `hookplane` not on PATH fails OPEN), merges them
 * into the agent's settings file at the chosen level (Hookplane's old entries replaced, everything
 * else kept), writes it atomically with a backup of the old file, remembers what it wrote (the
 * install state, beside the stored credential) and records the install on the server
 * (POST /api/v1/ingest/installs) so the agent's page lists this machine and says when it drifts.
 * Exit 0 installed and recorded, 1 installed but not recorded, 2 nothing written.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const os = require("node:os");
const { createHash } = require("node:crypto");
const settings = require("./hook-settings.cjs");
const { configDir } = require("./stored-credential.cjs");
const { errorMessageOf } = require("./http-exchange.cjs");

const sha256 = (text) => createHash("sha256").update(text, "utf8").digest("hex");

function cliVersion() {
  try {
    return require("../../package.json").version ?? "";
  } catch {
    return "";
  }
}

/** Where and as whom the CLI talks to Hookplane: HOOKPLANE_TOKEN, else what `hookplane login` stored. */
function connection(flags) {
  const stored = process.env.HOOKPLANE_TOKEN ? undefined : require("./stored-credential.cjs").readStoredCredential();
  const base = (flags.url ?? process.env.HOOKPLANE_URL ?? stored?.url ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  return { base, token: process.env.HOOKPLANE_TOKEN ?? stored?.token, source: process.env.HOOKPLANE_TOKEN ? "HOOKPLANE_TOKEN" : stored ? "stored by hookplane login" : undefined };
}

/** GET the agent's settings: {ok, status, text, sha256} or {ok: false, problem, fix, unreachable}. */
async function fetchSettings({ base, token, kind, agent, exchange, headers }) {
  let response;
  try {
    response = await exchange(`${base}/api/v1/ingest/${kind}/settings?agent=${encodeURIComponent(agent)}`, {
      method: "GET",
      headers: { authorization: `Bearer ${token}`, ...headers },
      timeoutMs: 15_000,
    });
  } catch (error) {
    return { ok: false, unreachable: true, problem: `Hookplane unreachable at ${base}: ${error.code ?? error.message ?? error}`, fix: "check the URL (--url, HOOKPLANE_URL) and that Hookplane runs" };
  }
  if (response.status === 200) return { ok: true, status: 200, text: response.text, sha256: sha256(response.text) };
  const problem = `Hookplane at ${base} answered ${response.status}: ${errorMessageOf(response.text)}`;
  const fix =
    response.status === 401
      ? "run hookplane login (the credential is unknown, revoked or expired)"
      : response.status === 403
        ? "use a bridge credential (hookplane login) or an operator token"
        : response.status === 404
          ? `check the agent's name (--agent): no agent "${agent}" in the credential's project`
          : "see the message";
  return { ok: false, status: response.status, problem, fix };
}

function stateFile() {
  return path.join(configDir(), "installs.json");
}

/** What install wrote, by settings file: {agent, codingAgent, level, url, sha256, entries, installedAt}. */
function readInstallState() {
  try {
    const state = JSON.parse(fs.readFileSync(stateFile(), "utf8"));
    return state && typeof state === "object" ? state : {};
  } catch {
    return {};
  }
}

/** Writes `text` to `file` through a temporary file and a rename (a reader never sees half), with `mode`. */
function writeAtomically(file, text, mode) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.hookplane-${process.pid}.tmp`);
  fs.writeFileSync(temporary, text, { mode });
  fs.chmodSync(temporary, mode);
  fs.renameSync(temporary, file);
}

function saveInstallState(file, record) {
  const state = readInstallState();
  state[file] = record;
  fs.mkdirSync(configDir(), { recursive: true, mode: 0o700 });
  writeAtomically(stateFile(), `${JSON.stringify(state, null, 2)}\n`, 0o600);
}

function defaultLevel(kind, flags) {
  return kind === "copilot" || flags.dir !== undefined ? "project" : "user";
}

/** The settings file's current text and document (undefined when there is none); throws when it is not JSON. */
function readSettingsFile(file) {
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return { text: undefined, document: undefined };
    throw error;
  }
  if (text.trim() === "") return { text, document: undefined };
  try {
    return { text, document: JSON.parse(text.replace(/^\uFEFF/, "")) };
  } catch (error) {
    throw new Error(`${file} is not JSON (${error.message}); fix it or move it away, then install again`);
  }
}

/** Resolves the exit code. `ctx`: {exchange, machineHeaders, cli, out: {log, error}}. */
async function install(flags, ctx) {
  const { out } = ctx;
  const kind = flags.positional[1];
  if (!Object.hasOwn(settings.CODING_AGENTS, kind ?? "")) {
    out.error(`hookplane install: name the coding agent: ${Object.keys(settings.CODING_AGENTS).join(", ")}`);
    return 2;
  }
  const agent = flags.agent ?? process.env.HOOKPLANE_AGENT;
  if (!agent) {
    out.error("hookplane install: name the Hookplane agent (--agent NAME)");
    return 2;
  }
  const level = flags.level ?? defaultLevel(kind, flags);
  if (!settings.LEVELS.includes(level)) {
    out.error(`hookplane install: --level is one of ${settings.LEVELS.join(", ")}`);
    return 2;
  }
  let file;
  try {
    file = settings.settingsPath(kind, level, { home: os.homedir(), dir: flags.dir, vars: process.env });
    if (file instanceof Error) throw file;
  } catch (error) {
    out.error(`hookplane install: ${error.message}`);
    return 2;
  }
  const { base, token } = connection(flags);
  if (!token) {
    out.error("hookplane install: not signed in: run hookplane login (or set HOOKPLANE_TOKEN to a bridge credential)");
    return 2;
  }
  const machine = ctx.machineHeaders();
  const fetched = await fetchSettings({ base, token, kind, agent, exchange: ctx.exchange, headers: machine });
  if (!fetched.ok) {
    out.error(`hookplane install: ${fetched.problem}\n  fix: ${fetched.fix}`);
    return 2;
  }
  let existing;
  let exported;
  try {
    exported = JSON.parse(fetched.text);
    existing = readSettingsFile(file);
  } catch (error) {
    out.error(`hookplane install: ${error.message}`);
    return 2;
  }
  const pinned = settings.pinDocument(exported, { kind, node: process.execPath, cli: ctx.cli });
  const state = readInstallState();
  let merged;
  try {
    merged = settings.mergeSettings(existing.document, pinned, { kind, previous: state[file]?.entries ?? [] });
  } catch (error) {
    out.error(`hookplane install: ${file}: ${error.message}`);
    return 2;
  }
  const text = `${JSON.stringify(merged.document, null, 2)}\n`;
  const summary = settings.describeChanges(merged.changes).map((line) => `  ${line}`);

  if (flags.dryRun) {
    out.log(`Would write ${file} (${settings.CODING_AGENTS[kind].name}, ${level} level, agent ${agent}):`);
    for (const line of summary) out.log(line);
    out.log(text.trimEnd());
    out.log("Nothing written (--dry-run).");
    return 0;
  }

  let backup;
  try {
    if (existing.text !== undefined && existing.text !== text) {
      backup = `${file}.hookplane-${new Date().toISOString().replace(/[:.]/g, "-")}.bak`;
      fs.copyFileSync(file, backup);
    }
    const mode = existing.text === undefined ? 0o644 : fs.statSync(file).mode & 0o777;
    if (existing.text !== text) writeAtomically(file, text, mode);
  } catch (error) {
    out.error(`hookplane install: could not write ${file}: ${error.code ?? error.message}${error.code === "EACCES" && level === "managed" ? " (the managed level needs root: sudo)" : ""}`);
    return 2;
  }
  out.log(`${existing.text === text ? "Unchanged" : "Wrote"} ${file} (${settings.CODING_AGENTS[kind].name}, ${level} level, agent ${agent}):`);
  for (const line of summary) out.log(line);
  if (backup) out.log(`  the previous file is kept as ${backup}`);
  out.log(`  hooks run ${process.execPath} ${ctx.cli} (not \`hookplane\` from PATH), and block if it cannot run`);
  try {
    saveInstallState(file, { agent, codingAgent: kind, level, url: base, sha256: fetched.sha256, entries: settings.recordedEntries(pinned, kind), installedAt: new Date().toISOString() });
  } catch (error) {
    out.error(`hookplane install: could not remember the install in ${stateFile()}: ${error.code ?? error.message} (a re-install still finds Hookplane's bridge hooks)`);
  }

  const record = {
    agent,
    codingAgent: kind,
    level,
    settingsPath: file,
    settingsSha256: fetched.sha256,
    cliVersion: cliVersion(),
    host: machine["x-hookplane-host"] ?? "",
    osUser: machine["x-hookplane-os-user"] ?? "",
  };
  let recorded;
  try {
    recorded = await ctx.exchange(`${base}/api/v1/ingest/installs`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...machine },
      body: JSON.stringify(record),
      timeoutMs: 15_000,
    });
  } catch (error) {
    recorded = { status: 0, text: String(error.code ?? error.message ?? error) };
  }
  if (recorded.status !== 201) {
    out.error(`hookplane install: installed, but Hookplane did not record it (${recorded.status || "unreachable"}: ${errorMessageOf(recorded.text)}); run it again to record it`);
    return 1;
  }
  out.log(`Recorded on ${base}: the agent's page lists this machine (${record.host}, ${record.osUser}).`);
  return 0;
}

module.exports = { install, connection, fetchSettings, readInstallState, readSettingsFile, sha256, stateFile };
