/**
 * The agent's fail mode as Hookplane last said it (the `X-Hookplane-Fail-Mode` header of every
 * ingest answer): what `hook` does with a gated call when Hookplane cannot answer. An admin sets it
 * per agent; while it is set it overrules the command's `--fail-open` either way. Kept in the
 * config folder's `fail-modes.json` (0600), one entry per server, agent and credential (another
 * project's agent of the same name on the same server is another entry), written only when it
 * changes. The developer can edit the file: what the CLI decided alone is reported later with the
 * mode it applied, and Hookplane marks a call let through against a fail-closed policy.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { configDir } = require("./stored-credential.cjs");

const MODES = new Set(["closed", "open"]);

function modesFile() {
  return path.join(configDir(), "fail-modes.json");
}

/**
 * The entry's key: the server and agent as they are, the credential as a 32-bit FNV-1a tag (never
 * the token itself; node:crypto's load alone would add ~0.4 ms to every hook call).
 */
function keyOf(base, agent, token) {
  let tag = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) tag = Math.imul(tag ^ token.charCodeAt(i), 0x01000193);
  return `${base} ${agent} ${(tag >>> 0).toString(16).padStart(8, "0")}`;
}

function readModes() {
  try {
    const kept = JSON.parse(fs.readFileSync(modesFile(), "utf8"));
    return kept && typeof kept === "object" && !Array.isArray(kept) ? kept : {};
  } catch {
    return {};
  }
}

/** "closed", "open", or undefined when Hookplane never said one for this agent and credential. */
function keptFailMode(base, agent, token) {
  const mode = readModes()[keyOf(base, agent, token)]?.mode;
  return MODES.has(mode) ? mode : undefined;
}

/** Keeps what an answer said ("closed", "open", or "unset": the flag decides); never throws. */
function keepFailMode(base, agent, token, said) {
  if (said !== "unset" && !MODES.has(said)) return;
  try {
    const modes = readModes();
    const key = keyOf(base, agent, token);
    if ((modes[key]?.mode ?? "unset") === said) return;
    if (said === "unset") delete modes[key];
    else modes[key] = { mode: said, since: new Date().toISOString() };
    const dir = configDir();
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temporary = path.join(dir, `.fail-modes.${process.pid}.tmp`);
    fs.writeFileSync(temporary, JSON.stringify(modes), { mode: 0o600 });
    fs.renameSync(temporary, modesFile());
  } catch {
    // Not kept: the next answer tries again, and meanwhile the last kept mode (or the flag) holds.
  }
}

module.exports = { keptFailMode, keepFailMode };
