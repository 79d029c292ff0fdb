/**
 * What a developer's own hooks decided on their machine (runs-on.ts: imported command hooks keep
 * running there, from the settings `hookplane install` writes), recorded in the run. Claude Code
 * writes a hook's block into its transcript as the tool's result, `PreToolUse:Bash hook error:
 * [<command>]: <what the hook said>`; `hookplane hook claude-code` sends those it finds at each
 * turn's end (`hookplane_local_blocks`), and each becomes, once per tool call, a `hook.local` event
 * with a ledger row of the hook whose command it names (verdict block, its words as the reason), so
 * the run view, the audit ledger and hook health say which hook decided. A block by a hook Hookplane
 * does not know (added on that machine by hand) is recorded as an event without a ledger row.
 */
import { z } from "zod";
import type { Db } from "@/db/client";
import { listRecordedEventKeys } from "@/db/queries/run-events";
import { CLAUDE_TO_CANONICAL, type ClaudeCodeEvent } from "@/lib/core/dialects/claude-code-events";
import { hookEvent, type EventActor } from "@/lib/core/hooks/event";
import type { EventName } from "@/lib/core/hooks/events";
import type { LedgerEntry } from "@/lib/core/hooks/ledger";
import type { RuntimeHook } from "@/lib/core/hooks/runtime-types";
import { ledgerRows } from "@/lib/features/hooks/hook-runtime-factory";
import type { RunSession } from "@/lib/features/runs/run-session";

export const localHookBlocksSchema = z
  .array(z.object({ tool_use_id: z.string().min(1).max(200), text: z.string().min(1).max(4000) }).strict())
  .max(200);
export type LocalHookBlock = z.infer<typeof localHookBlocksSchema>[number];

/** `PreToolUse:Bash hook error: [` — the event, the tool, then the command in brackets. */
const BLOCK_HEAD = /^([A-Za-z]+):(\S*) hook error: \[/;

export interface LocalBlockReading {
  claudeEvent: string;
  toolName: string;
  /** The hook whose command the text names; undefined for one Hookplane does not know. */
  hook?: RuntimeHook;
  reason: string;
}

/** Reads one transcript block against the hooks that run on the agent's machine; undefined when it is no hook's block. */
export function readLocalHookBlock(block: LocalHookBlock, hooks: readonly RuntimeHook[]): LocalBlockReading | undefined {
  const head = BLOCK_HEAD.exec(block.text);
  if (!head) return undefined;
  const [prefix, claudeEvent, toolName] = head;
  for (const hook of hooks) {
    if (hook.action.type !== "command") continue;
    const named = `${prefix}${hook.action.command}]: `;
    if (block.text.startsWith(named)) return { claudeEvent, toolName, hook, reason: block.text.slice(named.length).trim() };
  }
  return { claudeEvent, toolName, reason: block.text.slice(prefix.length).trim() };
}

export async function recordLocalHookBlocks(
  db: Db,
  session: RunSession,
  params: { projectId: string; agentName: string; actor?: EventActor; blocks: readonly LocalHookBlock[] },
): Promise<number> {
  const byCall = new Map<string, LocalBlockReading>();
  for (const block of params.blocks) {
    const reading = readLocalHookBlock(block, session.agentMachineHooks);
    if (reading && !byCall.has(block.tool_use_id)) byCall.set(block.tool_use_id, reading);
  }
  // Every turn's end reports the whole transcript again: each tool call's block once.
  const seen = await listRecordedEventKeys(db, { runId: session.runId, type: "hook.local", field: "toolCallId", keys: [...byCall.keys()] });
  let recorded = 0;
  for (const [toolCallId, reading] of byCall) {
    if (seen.has(toolCallId)) continue;
    const mapped = CLAUDE_TO_CANONICAL[reading.claudeEvent as ClaudeCodeEvent];
    const event: EventName = reading.hook?.event ?? (typeof mapped === "string" ? mapped : "tool.pre");
    const data = { event, toolName: reading.toolName, toolCallId, verdict: "block", reason: reading.reason, ranOn: "agent", ...(reading.hook ? { hookId: reading.hook.id } : {}) };
    if (reading.hook) {
      const about = hookEvent({ type: event, runId: session.runId, agentName: params.agentName, ts: Date.now(), data, ...(params.actor ? { actor: params.actor } : {}) });
      session.writer.ledger(ledgerRows([ledgerEntryOf(reading.hook, event, reading.reason)], about, undefined, params.projectId));
    }
    await session.writer.recordDispatched([{ type: "hook.local", data }]);
    recorded++;
  }
  return recorded;
}

function ledgerEntryOf(hook: RuntimeHook, event: EventName, reason: string): LedgerEntry {
  return {
    hookId: hook.id,
    hookVersion: hook.version,
    event,
    scope: hook.scope,
    action: hook.action.type,
    mode: hook.mode === "shadow" ? "shadow" : "enforce",
    matched: true,
    verdict: "block",
    reason,
    failed: false,
    timedOut: false,
    ignored: false,
    exitCode: 2,
    stdout: undefined,
    stderr: reason,
    output: undefined,
    approval: undefined,
    // When it ran is the developer's machine's to know: the transcript gives no time.
    startedAt: Date.now(),
    durationMs: 0,
  };
}
