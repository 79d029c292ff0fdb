/**
 * How the `hookplane` CLI reads stdin and writes stdout and stderr: directly, with readSync and
 * writeSync on the descriptors, because setting up process.stdin/stdout streams costs start-up time
 * on every hook call (see bin/hookplane.cjs). The streams are used only when a descriptor is
 * non-blocking and would block (EAGAIN).
 */
"use strict";
const { readSync, writeSync } = require("node:fs");

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

module.exports = { readStdin, warn, warnOrPrint, writeAndExit };
