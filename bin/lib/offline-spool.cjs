/**
 * The offline spool: every decision the CLI takes alone because Hookplane cannot be reached (it
 * failed closed, or open where told to) is kept here, one file per decision in the config folder's
 * `spool/` (0700; files 0600), and sent to `POST /api/v1/ingest/offline` once Hookplane answers
 * again, by a process of its own so no hook call waits for it. Bounded: past MAX_ENTRIES the oldest
 * go, and how many went is sent too (the server keeps an audit row of it). A flusher claims files by
 * moving them into a folder of its own, so two flushers never send one file; a batch the server
 * refused or never answered goes back. The server records each entry's id once, so a batch sent
 * again (its answer lost) is not recorded twice.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { configDir } = require("./stored-credential.cjs");

const MAX_ENTRIES = 1000;
const BATCH = 200;

function spoolDir() {
  return path.join(configDir(), "spool");
}

function droppedFile() {
  return path.join(spoolDir(), "dropped");
}

function pending(dir = spoolDir()) {
  try {
    return fs.readdirSync(dir).filter((name) => name.endsWith(".json")).sort();
  } catch {
    return [];
  }
}

/** Whether anything waits to be sent (one directory read: the hook path asks after every answer). */
function hasSpooled() {
  return pending().length > 0;
}

function readDropped() {
  try {
    return Number(fs.readFileSync(droppedFile(), "utf8")) || 0;
  } catch {
    return 0;
  }
}

function writeDropped(count) {
  if (count > 0) fs.writeFileSync(droppedFile(), String(count), { mode: 0o600 });
  else fs.rmSync(droppedFile(), { force: true });
}

/** Keeps one decision: {bridge, agent, payload, decision: "allowed"|"blocked", reason}. Never throws. */
function spoolDecision(decision) {
  try {
    const dir = spoolDir();
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const waiting = pending(dir);
    const over = waiting.length - MAX_ENTRIES + 1;
    if (over > 0) {
      for (const name of waiting.slice(0, over)) fs.rmSync(path.join(dir, name), { force: true });
      writeDropped(readDropped() + over);
    }
    const { randomUUID } = require("node:crypto");
    const entry = { id: randomUUID(), decidedAt: new Date().toISOString(), ...decision };
    // Named by time, so the oldest sort first; written whole before it is visible under its name.
    const name = `${Date.now().toString().padStart(15, "0")}-${entry.id}.json`;
    const temporary = path.join(dir, `.${name}.tmp`);
    fs.writeFileSync(temporary, JSON.stringify(entry), { mode: 0o600 });
    fs.renameSync(temporary, path.join(dir, name));
    return true;
  } catch {
    return false;
  }
}

/** Sends what waits, batch by batch; resolves {sent, failed}. */
async function flushSpool({ base, headers, exchange }) {
  const dir = spoolDir();
  const claim = path.join(dir, `sending-${process.pid}`);
  fs.mkdirSync(claim, { recursive: true, mode: 0o700 });
  let sent = 0;
  let failed = false;
  try {
    for (;;) {
      const names = [];
      for (const name of pending(dir).slice(0, BATCH)) {
        try {
          fs.renameSync(path.join(dir, name), path.join(claim, name));
          names.push(name);
        } catch {
          // Another flusher took it.
        }
      }
      if (names.length === 0) break;
      const entries = names.flatMap((name) => {
        try {
          return [JSON.parse(fs.readFileSync(path.join(claim, name), "utf8"))];
        } catch {
          return [];
        }
      });
      const dropped = readDropped();
      let answer;
      try {
        answer = await exchange(`${base}/api/v1/ingest/offline`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ entries, dropped }),
          timeoutMs: 30_000,
        });
      } catch {
        answer = undefined;
      }
      if (answer?.status !== 200) {
        failed = true;
        break;
      }
      writeDropped(readDropped() - dropped);
      for (const name of names) fs.rmSync(path.join(claim, name), { force: true });
      sent += entries.length;
    }
  } finally {
    // Whatever is still claimed (an error on the way) goes back to wait, never away.
    for (const name of pending(claim)) {
      try {
        fs.renameSync(path.join(claim, name), path.join(dir, name));
      } catch {
        // left in the claim folder: a later flusher's pending() does not see it, so keep the folder
        return { sent, failed: true };
      }
    }
    fs.rmSync(claim, { recursive: true, force: true });
  }
  return { sent, failed };
}

module.exports = { hasSpooled, spoolDecision, flushSpool, spoolDir };
