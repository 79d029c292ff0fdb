/**
 * A transcript's text, read once per CLI process: at a turn's end both its usage and the blocks of
 * the developer's own hooks are read from it, and transcripts grow to megabytes.
 */
"use strict";
const { readFileSync } = require("node:fs");

const read = new Map();

function transcriptText(path) {
  let text = read.get(path);
  if (text === undefined) {
    text = readFileSync(path, "utf8");
    read.set(path, text);
  }
  return text;
}

/** A text already read another way (Copilot's events file, read as it settles). */
function rememberTranscriptText(path, text) {
  read.set(path, text);
}

module.exports = { rememberTranscriptText, transcriptText };
