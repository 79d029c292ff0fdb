/**
 * The structured answer a command's stdout, a webhook's response or a code hook's return value may
 * carry. Two dialects are understood:
 * - Loom: `{continue: false, reason}`, `{output}`, `{additionalContext}`;
 * - Claude Code: `{hookSpecificOutput: {permissionDecision: allow|deny|ask, permissionDecisionReason,
 *   additionalContext, updatedInput, updatedToolOutput | updatedMCPToolOutput}}`, `{decision: "block",
 *   reason}` and `{continue: false, stopReason}`.
 * `updatedInput` (an object: the whole new tool input) and `updatedToolOutput` are also read at the
 * top level; the runtime applies them on tool.pre and tool.post, and records them as changes.
 */
import { isPlainObject } from "./merge-patch";
import type { ActionResult } from "./executors/types";

export type HookAnswer = ActionResult;

export function readHookAnswer(value: unknown): HookAnswer {
  if (!value || typeof value !== "object" || Array.isArray(value)) return { verdict: "allow" };
  const o = value as Record<string, unknown>;
  const answer: HookAnswer = { verdict: "allow" };
  if (o.continue === false || o.decision === "block" || o.decision === "deny") {
    answer.verdict = "block";
    answer.reason = text(o.reason) ?? text(o.stopReason);
  }
  const output = text(o.output);
  if (output) answer.output = output;
  const context = text(o.additionalContext);
  if (context) answer.context = context;

  readModification(answer, o);
  const specific = o.hookSpecificOutput;
  if (specific && typeof specific === "object") {
    readModification(answer, specific as Record<string, unknown>);
    const s = specific as Record<string, unknown>;
    const reason = text(s.permissionDecisionReason);
    if (s.permissionDecision === "deny") {
      answer.verdict = "block";
      answer.reason = reason ?? answer.reason;
    } else if (s.permissionDecision === "ask") {
      answer.ask = { message: reason };
    } else if (s.permissionDecision === "allow" && reason) {
      answer.reason ??= reason;
    }
    const extra = text(s.additionalContext);
    if (extra) answer.context = answer.context ? `${answer.context}\n${extra}` : extra;
  }
  return answer;
}

function readModification(answer: HookAnswer, o: Record<string, unknown>) {
  if (isPlainObject(o.updatedInput)) answer.modify = { ...answer.modify, input: o.updatedInput };
  const output = o.updatedToolOutput !== undefined ? o.updatedToolOutput : o.updatedMCPToolOutput;
  if (output !== undefined) answer.modify = { ...answer.modify, output };
}

/** Parses stdout or a response body that looks like JSON; undefined for plain text or bad JSON. */
export function parseJsonAnswer(raw: string): { value?: unknown; invalid?: string } {
  const trimmed = raw.trim();
  if (!trimmed.startsWith("{")) return {};
  try {
    return { value: JSON.parse(trimmed) };
  } catch (error) {
    return { invalid: (error as Error).message };
  }
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}
