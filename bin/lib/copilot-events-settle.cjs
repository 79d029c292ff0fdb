/**
 * Copilot CLI writes its events file (`events.jsonl`) behind its hooks: when agentStop or
 * sessionEnd runs, the file may not yet hold the turn's model calls (seen under load: none of the
 * session's). Copilot writes each hook's start there too (`hook.start` with the hook's input), in
 * order, so once the line of the hook now running is in the file, every model call before it is.
 * `settledEventsText` waits for that line, at most `limitMs`, and returns the file's text as read
 * (remembered, so the usage reader does not read it again). A file with no `hook.start` at all (a
 * Copilot that does not log its hooks) is not waited on.
 */
"use strict";
const { closeSync, openSync, readSync, fstatSync } = require("node:fs");
const { rememberTranscriptText } = require("./transcript-text.cjs");

const POLL_MS = 20;

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
  const fd = openSync(path, "r");
  const chunks = [];
  let offset = 0;
  let partial = "";
  let sawHookLines = false;
  const deadline = Date.now() + limitMs;
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
        }
      }
      if (!sawHookLines || Date.now() >= deadline) return remember(path, chunks);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
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
