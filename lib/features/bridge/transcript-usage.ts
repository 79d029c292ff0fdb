/**
 * Tokens and cost of a bridged session, from the transcript its agent writes (Claude Code's
 * `transcript_path`: JSONL, one line per message block, `message.usage` on assistant lines). The
 * `hookplane` CLI runs beside the agent, so it reads the file at the session's turn ends and sends
 * each assistant message's usage; the server records every message it has not seen yet as a
 * `model.post` (priced through the price table), which adds to the run's totals, so run totals,
 * the costs page and budgets see the session.
 */
import { z } from "zod";
import type { Db } from "@/db/client";
import { listRecordedEventKeys } from "@/db/queries/run-events";
import { loadPriceBook } from "@/lib/features/costs/project-prices";
import type { RunSession } from "@/lib/features/runs/run-session";

const tokens = z.number().int().min(0).max(1e12);

/** One assistant message as the CLI read it (Anthropic's usage names, as in the transcript). */
export const transcriptMessageSchema = z.object({
  id: z.string().min(1).max(300),
  model: z.string().min(1).max(300),
  input_tokens: tokens,
  output_tokens: tokens,
  cache_read_input_tokens: tokens.default(0),
  cache_creation_input_tokens: tokens.default(0),
  /** Set when the message is a subagent's (read from its own transcript). */
  agent_id: z.string().max(300).optional(),
});

export const transcriptUsageSchema = z.object({
  transcript: z.string().max(4096),
  messages: z.array(transcriptMessageSchema).max(50_000),
});
export type TranscriptUsage = z.infer<typeof transcriptUsageSchema>;

/** Records the messages the run has not recorded yet, priced in the run's project; returns how many were new. */
export async function recordTranscriptUsage(db: Db, session: RunSession, projectId: string, usage: TranscriptUsage): Promise<number> {
  // A message appears on several lines (one per content block) and in every later report: once each.
  const byId = new Map(usage.messages.map((m) => [m.id, m]));
  const seen = await listRecordedEventKeys(db, { runId: session.runId, type: "model.post", field: "messageId", keys: [...byId.keys()] });
  const fresh = [...byId.values()].filter((m) => !seen.has(m.id));
  if (fresh.length === 0) return 0;
  const prices = await loadPriceBook(db, projectId);
  for (const m of fresh) {
    // Claude Code names Anthropic's models bare; Hookplane's price table and costs page say the provider.
    const model = m.model.includes(":") ? m.model : `anthropic:${m.model}`;
    // The neutral count includes cache reads and writes (as the Anthropic provider records it).
    const inputTokens = m.input_tokens + m.cache_read_input_tokens + m.cache_creation_input_tokens;
    const counted = { inputTokens, outputTokens: m.output_tokens, cachedTokens: m.cache_read_input_tokens };
    await session.writer.record("model.post", {
      model,
      ...counted,
      costUsd: prices.costOf(model, counted),
      toolCallCount: 0,
      text: "",
      messageId: m.id,
      source: "transcript",
      ...(m.agent_id ? { agentId: m.agent_id } : {}),
    });
  }
  return fresh.length;
}
