/**
 * What the developer's own hooks blocked, as Claude Code wrote it into its transcript: the tool's
 * result `PreToolUse:Bash hook error: [<command>]: <what the hook said>`, an error. Sent at a turn's
 * end beside the usage (`hookplane_local_blocks`) so the run records which hook on this machine
 * decided (lib/features/bridge/local-hook-outcomes.ts). Loaded only then.
 */
"use strict";
const { transcriptText } = require("./transcript-text.cjs");

const HEAD = /^[A-Za-z]+:\S* hook error: \[/;
const MAX_TEXT = 4000;
const MAX_BLOCKS = 200;

function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

/** [{tool_use_id, text}] for each tool result a hook's block wrote, the latest MAX_BLOCKS. */
function claudeTranscriptHookBlocks(path) {
  const blocks = [];
  for (const line of transcriptText(path).split("\n")) {
    if (!line.includes(" hook error: [")) continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // a line being written as we read
    }
    const content = entry?.type === "user" ? entry.message?.content : undefined;
    if (!Array.isArray(content)) continue;
    for (const part of content) {
      if (part?.type !== "tool_result" || part.is_error !== true || typeof part.tool_use_id !== "string") continue;
      const text = textOf(part.content);
      if (HEAD.test(text)) blocks.push({ tool_use_id: part.tool_use_id.slice(0, 200), text: text.slice(0, MAX_TEXT) });
    }
  }
  return blocks.slice(-MAX_BLOCKS);
}

module.exports = { claudeTranscriptHookBlocks };
