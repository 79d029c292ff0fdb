/**
 * Gemini CLI's hook protocol (settings.json `hooks`, 0.61), both ways: its stdin JSON becomes a
 * Hookplane session event, a dispatch result becomes the JSON it reads. Recorded payloads are in
 * test/fixtures/bridges/gemini-cli; docs/bridges/other-agents.md has the table.
 *
 * As with Claude Code, the canonical fields are named as the hook model names them and every
 * other field stays as sent under `geminiCli`. Gemini CLI gives tool calls no id: the server makes
 * one per BeforeTool, so an approval belongs to that one call.
 */
import { z } from "zod";
import type { DispatchResult } from "@/lib/core/hooks/runtime-types";
import type { SessionEvent } from "./session-ingest";
import { transcriptUsageSchema } from "./transcript-usage";

export const geminiHookInputSchema = z.looseObject({
  session_id: z.string().min(1).max(300),
  hook_event_name: z.string().min(1).max(100),
  cwd: z.string().optional(),
  transcript_path: z.string().optional(),
  timestamp: z.string().optional(),
  tool_name: z.string().min(1).optional(),
  tool_input: z.unknown().optional(),
  tool_response: z.unknown().optional(),
  prompt: z.string().optional(),
  prompt_response: z.string().optional(),
  stop_hook_active: z.boolean().optional(),
  source: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  hookplane_usage: transcriptUsageSchema.optional(),
});
export type GeminiHookInput = z.infer<typeof geminiHookInputSchema>;

export function geminiInputIssues(input: GeminiHookInput): { path: string; message: string }[] {
  const toolEvent = input.hook_event_name === "BeforeTool" || input.hook_event_name === "AfterTool";
  return toolEvent && !input.tool_name ? [{ path: "tool_name", message: `${input.hook_event_name} needs tool_name` }] : [];
}

/** AfterTool's response: `{llmContent, returnDisplay, error?}`; an error says the call failed. */
function toolError(response: unknown): string | undefined {
  if (!response || typeof response !== "object") return undefined;
  const error = (response as Record<string, unknown>).error;
  if (error === undefined || error === null) return undefined;
  if (typeof error === "string") return error;
  const message = (error as Record<string, unknown>).message;
  return typeof message === "string" ? message : JSON.stringify(error);
}

function rest(input: GeminiHookInput, used: readonly string[]): Record<string, unknown> {
  const skip = new Set(["session_id", "cwd", "hookplane_usage", ...used]);
  return Object.fromEntries(Object.entries(input).filter(([key, value]) => !skip.has(key) && value !== undefined));
}

export function geminiSessionEvent(agent: string, input: GeminiHookInput): SessionEvent {
  const common = { agent, sessionId: input.session_id, source: "gemini-cli", title: `Gemini CLI session ${input.session_id.slice(0, 8)}${input.cwd ? ` in ${input.cwd}` : ""}` };
  const event = (type: string, data: Record<string, unknown>, used: readonly string[], extra: Partial<SessionEvent> = {}): SessionEvent => ({
    ...common,
    type,
    data: { ...(input.cwd !== undefined ? { cwd: input.cwd } : {}), ...data, geminiCli: rest(input, used) },
    ...(input.hookplane_usage ? { usage: input.hookplane_usage } : {}),
    ...extra,
  });
  const tool = { toolName: input.tool_name, toolInput: input.tool_input ?? {} };
  switch (input.hook_event_name) {
    case "SessionStart":
      if (input.source === "resume") return event("session.resume", { source: input.source }, ["source"], { continues: true });
      return event("session.start", { source: input.source ?? "startup", prompt: "" }, ["source"]);
    case "BeforeAgent":
      return event("user.prompt.submit", { prompt: input.prompt ?? "" }, ["prompt"]);
    case "BeforeTool":
      return event("tool.pre", tool, ["tool_name", "tool_input"]);
    case "AfterTool": {
      const error = toolError(input.tool_response);
      return event("tool.post", { ...tool, output: input.tool_response, isError: error !== undefined, ...(error !== undefined ? { error } : {}) }, ["tool_name", "tool_input", "tool_response"]);
    }
    case "AfterAgent":
      return event("turn.end", { stopHookActive: input.stop_hook_active ?? false, response: input.prompt_response }, ["stop_hook_active", "prompt_response"]);
    case "Notification":
      return event("notification", { message: input.message ?? "" }, ["message"]);
    case "SessionEnd":
      // exit, clear, logout, prompt_input_exit, other: each an ordinary end of the session.
      return event("session.end", { outcome: "completed", reason: input.reason ?? "session ended" }, ["reason"]);
    default:
      return event(`gemini-cli.${input.hook_event_name}`, {}, []);
  }
}

export type GeminiHookOutput = {
  decision?: "allow" | "deny" | "ask";
  reason?: string;
  systemMessage?: string;
  /** BeforeTool `tool_input`: the arguments the tool runs with (modification-support.ts says when). */
  hookSpecificOutput?: { hookEventName: string; additionalContext?: string; tool_input?: Record<string, unknown> };
};

function contextOf(result: DispatchResult): string | undefined {
  const texts = result.verdict === "block" ? [...result.context, ...(result.output ? [result.output] : [])] : result.reminders;
  return texts.length > 0 ? texts.join("\n\n") : undefined;
}

/** Events whose answer may carry `hookSpecificOutput.additionalContext`. */
const CONTEXT_EVENTS = new Set(["BeforeAgent", "AfterTool", "SessionStart"]);

export function geminiHookOutput(hookEventName: string, result: DispatchResult | undefined): GeminiHookOutput {
  if (!result) return {};
  const context = CONTEXT_EVENTS.has(hookEventName) ? contextOf(result) : undefined;
  const specific = context ? { hookSpecificOutput: { hookEventName, additionalContext: context } } : {};
  const reason = result.reason ?? "Blocked by a Hookplane hook";
  switch (hookEventName) {
    // BeforeTool deny: the tool does not run, the reason goes to the model; a person's yes is an allow.
    case "BeforeTool":
      if (result.verdict === "block") return { decision: "deny", reason };
      if (result.askUser || result.toolInput) return geminiChangedCall(hookEventName, result);
      return result.approval?.decision === "approve" ? { decision: "allow", reason: `approved in Hookplane${result.approval.decidedBy ? ` by ${result.approval.decidedBy}` : ""}` } : {};
    // BeforeAgent deny: the turn is dropped with the prompt; AfterAgent deny: the reason is the next prompt.
    case "BeforeAgent":
    case "AfterAgent":
      return result.verdict === "block" ? { decision: "deny", reason, ...specific } : specific;
    default:
      return specific;
  }
}

/**
 * A call Hookplane changed: the new arguments as BeforeTool's `tool_input` (Gemini CLI 0.61 builds
 * the tool from them), and an `ask` as Gemini's own (its user confirms, with the reason shown).
 */
function geminiChangedCall(hookEventName: string, result: DispatchResult): GeminiHookOutput {
  const changed = result.toolInput ? { hookSpecificOutput: { hookEventName, tool_input: result.toolInput } } : {};
  if (result.askUser) return { decision: "ask", reason: result.askUser.reason, systemMessage: result.askUser.reason, ...changed };
  return { decision: "allow", reason: `input rewritten in Hookplane by hook ${(result.modifiedBy ?? []).join(", ")}`, ...changed };
}

/** Gemini CLI event → what Hookplane does, for the docs and the tests. */
export const GEMINI_EVENTS = {
  SessionStart: "session.start (startup, clear); resume recorded as session.resume in the same run",
  BeforeAgent: "user.prompt.submit",
  BeforeTool: "tool.pre",
  AfterTool: "tool.post (isError and error from tool_response.error)",
  AfterAgent: "turn.end",
  Notification: "recorded (notification)",
  SessionEnd: "session.end (completed, reason kept)",
  BeforeModel: "recorded (gemini-cli.BeforeModel)",
  AfterModel: "recorded (gemini-cli.AfterModel)",
  BeforeToolSelection: "recorded (gemini-cli.BeforeToolSelection)",
  PreCompress: "recorded (gemini-cli.PreCompress)",
} as const;
