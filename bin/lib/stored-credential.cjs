/**
 * The credential `hookplane login` stored for this OS user: `credentials.json` in the config folder
 * (`HOOKPLANE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/hookplane`, else `~/.config/hookplane`), the
 * file 0600 and its folder 0700, so no other user of the machine can read it.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

function configDir() {
  if (process.env.HOOKPLANE_CONFIG_DIR) return process.env.HOOKPLANE_CONFIG_DIR;
  const base = process.env.XDG_CONFIG_HOME || path.join(require("node:os").homedir(), ".config");
  return path.join(base, "hookplane");
}

function credentialsFile() {
  return path.join(configDir(), "credentials.json");
}

/** {url, token, email, project} or undefined when there is none (or it cannot be read). */
function readStoredCredential() {
  try {
    const stored = JSON.parse(fs.readFileSync(credentialsFile(), "utf8"));
    return typeof stored?.token === "string" ? stored : undefined;
  } catch {
    return undefined;
  }
}

function writeStoredCredential(credential) {
  const dir = configDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const file = credentialsFile();
  // Written whole to a new file first: a reader never sees half of it, and its mode is set before the secret is in it.
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(credential, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, file);
  return file;
}

function removeStoredCredential() {
  fs.rmSync(credentialsFile(), { force: true });
}

module.exports = { configDir, credentialsFile, readStoredCredential, writeStoredCredential, removeStoredCredential };
