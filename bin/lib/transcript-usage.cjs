/**
 * The usage of each model call in a coding agent's transcript, as `hookplane hook` sends it along
 * at a turn's end (`hookplane_usage`) for the session's cost. Loaded only then: the CLI's every
 * other call does without it (its start-up is on the agent's critical path).
 */
"use strict";
const { transcriptText } = require("./transcript-text.cjs");

/** The JSON lines of a transcript that may hold usage; a line being written as we read is skipped. */
function* transcriptEntries(path, marker) {
  for (const line of transcriptText(path).split("\n")) {
    if (!line.includes(marker)) continue;
    try {
      yield JSON.parse(line);
    } catch {
      /* partial line */
    }
  }
}

const count = (x) => (Number.isInteger(x) && x >= 0 ? x : 0);

/**
 * Each assistant message's usage in a Claude Code transcript (JSONL; one line per content block,
 * so a message may appear more than once: the server counts each id once).
 */
function claudeTranscriptUsage(path, agentId) {
  const messages = [];
  // '"usage' finds Claude Code's `usage` and the `usageMetadata` of Qwen Code, whose hooks use this bridge.
  for (const entry of transcriptEntries(path, '"usage')) {
    const qwen = qwenEntryUsage(entry);
    if (qwen) {
      messages.push({ ...qwen, ...(agentId ? { agent_id: agentId } : {}) });
      continue;
    }
    const m = entry?.message;
    if (entry?.type !== "assistant" || !m?.id || !m.usage || typeof m.model !== "string" || m.model === "<synthetic>") continue;
    const u = m.usage;
    messages.push({
      id: m.id,
      model: m.model,
      input_tokens: count(u.input_tokens),
      output_tokens: count(u.output_tokens),
      cache_read_input_tokens: count(u.cache_read_input_tokens),
      cache_creation_input_tokens: count(u.cache_creation_input_tokens),
      ...(agentId ? { agent_id: agentId } : {}),
    });
  }
  return messages;
}

/**
 * A Qwen Code 0.24 transcript line (`~/.qwen/projects/<project>/chats/<session>.jsonl`): an
 * `assistant` line per model call with Gemini's `usageMetadata` (the prompt count includes the
 * cached part; thoughts are billed as output), under the line's `uuid`. Else undefined.
 */
function qwenEntryUsage(entry) {
  const u = entry?.usageMetadata;
  if (entry?.type !== "assistant" || !u || typeof entry.uuid !== "string" || typeof entry.model !== "string") return undefined;
  const cached = Math.min(count(u.cachedContentTokenCount), count(u.promptTokenCount));
  return {
    id: entry.uuid,
    model: entry.model,
    input_tokens: count(u.promptTokenCount) - cached,
    output_tokens: count(u.candidatesTokenCount) + count(u.thoughtsTokenCount),
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: 0,
  };
}

/**
 * Gemini CLI's transcript: `type: "gemini"` lines with `tokens` (input includes the cached part;
 * thoughts are billed as output) and `model`; a message is rewritten as it grows (same id).
 */
function geminiTranscriptUsage(path) {
  const messages = [];
  for (const entry of transcriptEntries(path, '"tokens"')) {
    const t = entry?.tokens;
    if (entry?.type !== "gemini" || !entry.id || !t || typeof entry.model !== "string") continue;
    const cached = Math.min(count(t.cached), count(t.input));
    messages.push({
      id: entry.id,
      model: entry.model.includes(":") ? entry.model : `google:${entry.model}`,
      input_tokens: count(t.input) - cached,
      output_tokens: count(t.output) + count(t.thoughts),
      cache_read_input_tokens: cached,
      cache_creation_input_tokens: 0,
    });
  }
  // The last writing of a message holds its final count.
  return [...new Map(messages.map((m) => [m.id, m])).values()];
}

/**
 * Codex's rollout file: `token_count` events whose `last_token_usage` is one model call (OpenAI's
 * counts: input includes the cached part, output the reasoning); its `ordinal` names the call.
 */
function codexTranscriptUsage(path, _agentId, model) {
  const messages = [];
  let current = typeof model === "string" && model !== "" ? model : "unknown";
  for (const entry of transcriptEntries(path, '"type":"t')) {
    const payload = entry?.payload;
    if (entry?.type === "turn_context" && typeof payload?.model === "string") current = payload.model;
    const u = payload?.type === "token_count" ? payload.info?.last_token_usage : undefined;
    if (!u) continue;
    const cached = Math.min(count(u.cached_input_tokens), count(u.input_tokens));
    messages.push({
      id: `${path}#${entry.ordinal ?? entry.timestamp}`.slice(-300),
      model: current.includes(":") ? current : `openai:${current}`,
      input_tokens: count(u.input_tokens) - cached,
      output_tokens: count(u.output_tokens),
      cache_read_input_tokens: cached,
      cache_creation_input_tokens: 0, // OpenAI counts cache writes inside input_tokens
    });
  }
  return messages;
}

/** Copilot CLI's events.jsonl: `session.usage_record` lines, one per model call (`apiCallId`). */
function copilotTranscriptUsage(path) {
  const messages = [];
  for (const entry of transcriptEntries(path, '"session.usage_record"')) {
    const u = entry?.data?.usage;
    if (entry?.type !== "session.usage_record" || !u || typeof u.model !== "string") continue;
    const cached = Math.min(count(u.cacheReadTokens), count(u.inputTokens));
    messages.push({
      id: String(u.apiCallId ?? entry.id ?? entry.timestamp).slice(0, 300),
      model: u.model.includes(":") ? u.model : `copilot:${u.model}`,
      input_tokens: count(u.inputTokens) - cached,
      output_tokens: count(u.outputTokens),
      cache_read_input_tokens: cached,
      cache_creation_input_tokens: 0,
    });
  }
  return messages;
}

/** The readers by agent (the keys of the CLI's AGENTS). */
module.exports = {
  "claude-code": claudeTranscriptUsage,
  codex: codexTranscriptUsage,
  copilot: copilotTranscriptUsage,
  "gemini-cli": geminiTranscriptUsage,
};
