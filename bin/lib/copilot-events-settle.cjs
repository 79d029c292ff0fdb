/**
 * Copilot CLI writes its events file (`events.jsonl`) behind its hooks: when agentStop or
 * sessionEnd runs, the file may not yet hold the turn's model calls (seen under load: none of the
 * session's). Copilot writes each hook's start there too (`hook.start` with the hook's input), in
 * order, so once the line of the hook now running is in the file, every model call before it is.
 * `settledEventsText` waits for that line, at most `limitMs`, and returns the file's text as read
 * (remembered, so the usage reader does not read it again). Under load the whole file lags (no
 * line yet, not even the file): that is waited on too. A file with no `hook.start` at all is taken
 * for a Copilot that does not log its hooks once it holds a line written after this hook began, or
 * after QUIET_LIMIT_MS without one.
 */
"use strict";
const { closeSync, openSync, readSync, fstatSync } = require("node:fs");
const { rememberTranscriptText } = require("./transcript-text.cjs");

const POLL_MS = 20;
/** How long a file that shows no hook lines at all is waited on (it may only lag behind). */
const QUIET_LIMIT_MS = 1500;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether an events line was written at or after `timestamp` (epoch ms; each line has its ISO `timestamp`). */
function writtenSince(line, timestamp) {
  try {
    const at = Date.parse(JSON.parse(line)?.timestamp);
    return Number.isFinite(at) && at >= timestamp;
  } catch {
    return false;
  }
}

/** The file, once it exists (Copilot may not have created it yet), or the error at the deadline. */
async function openWhenThere(path, deadline) {
  for (;;) {
    try {
      return openSync(path, "r");
    } catch (error) {
      if (error?.code !== "ENOENT" || Date.now() >= deadline) throw error;
      await sleep(POLL_MS);
    }
  }
}

function isOwnStart(line, eventName, timestamp) {
  if (!line.includes('"hook.start"') || !line.includes(eventName)) return false;
  try {
    const entry = JSON.parse(line);
    return entry?.type === "hook.start" && entry.data?.hookType === eventName && entry.data?.input?.timestamp === timestamp;
  } catch {
    return false;
  }
}

async function settledEventsText(path, eventName, timestamp, limitMs = 5000) {
  if (typeof timestamp !== "number") return undefined;
  const started = Date.now();
  const deadline = started + limitMs;
  const quietUntil = started + Math.min(QUIET_LIMIT_MS, limitMs);
  const fd = await openWhenThere(path, deadline);
  const chunks = [];
  let offset = 0;
  let partial = "";
  let sawHookLines = false;
  let wentPastQuietly = false;
  try {
    for (;;) {
      const size = fstatSync(fd).size;
      if (size > offset) {
        const buffer = Buffer.alloc(size - offset);
        const got = readSync(fd, buffer, 0, buffer.length, offset);
        offset += got;
        const text = buffer.subarray(0, got).toString("utf8");
        chunks.push(text);
        const lines = (partial + text).split("\n");
        partial = lines.pop();
        for (const line of lines) {
          if (line.includes('"hook.start"')) sawHookLines = true;
          if (isOwnStart(line, eventName, timestamp)) return remember(path, chunks);
          if (!sawHookLines && writtenSince(line, timestamp)) wentPastQuietly = true;
        }
      }
      if (Date.now() >= deadline) return remember(path, chunks);
      if (!sawHookLines && (wentPastQuietly || Date.now() >= quietUntil)) return remember(path, chunks);
      await sleep(POLL_MS);
    }
  } finally {
    closeSync(fd);
  }
}

function remember(path, chunks) {
  const text = chunks.join("");
  rememberTranscriptText(path, text);
  return text;
}

module.exports = { settledEventsText };
