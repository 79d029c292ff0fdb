/**
 * GitHub Copilot CLI's hook protocol (`.github/hooks/*.json`, version 1; CLI 1.0.102), both ways.
 * Its stdin JSON is camelCase and does not name the event (only permissionRequest says
 * `hookName`): the bridge command names it (`hookplane hook copilot --event preToolUse`) and the
 * CLI sends it as `hookEventName`. Recorded payloads are in test/fixtures/bridges/copilot;
 * docs/bridges/other-agents.md has the table.
 *
 * Copilot CLI reads few answers: preToolUse `permissionDecision` (deny with a reason, allow),
 * permissionRequest `behavior`, agentStop `decision: "block"`; the rest is recorded only. Tool
 * calls carry no id, so an approval belongs to the one preToolUse that asked; permissionRequest,
 * which follows every preToolUse, is recorded and not asked again.
 */
import { z } from "zod";
import type { DispatchResult } from "@/lib/core/hooks/runtime-types";
import type { SessionEvent } from "./session-ingest";
import { transcriptUsageSchema } from "./transcript-usage";

export const COPILOT_EVENTS = [
  "sessionStart",
  "sessionEnd",
  "userPromptSubmitted",
  "preToolUse",
  "postToolUse",
  "permissionRequest",
  "agentStop",
  "subagentStop",
  "errorOccurred",
  "notification",
] as const;

export const copilotHookInputSchema = z.looseObject({
  sessionId: z.string().min(1).max(300),
  hookEventName: z.string().min(1).max(100),
  cwd: z.string().optional(),
  timestamp: z.number().optional(),
  toolName: z.string().min(1).optional(),
  toolArgs: z.unknown().optional(),
  toolInput: z.unknown().optional(),
  toolResult: z.unknown().optional(),
  prompt: z.string().optional(),
  initialPrompt: z.string().optional(),
  source: z.string().optional(),
  reason: z.string().optional(),
  stop_hook_active: z.boolean().optional(),
  hookplane_usage: transcriptUsageSchema.optional(),
});
export type CopilotHookInput = z.infer<typeof copilotHookInputSchema>;

export function copilotInputIssues(input: CopilotHookInput): { path: string; message: string }[] {
  const toolEvent = input.hookEventName === "preToolUse" || input.hookEventName === "postToolUse" || input.hookEventName === "permissionRequest";
  return toolEvent && !input.toolName ? [{ path: "toolName", message: `${input.hookEventName} needs toolName` }] : [];
}

/** sessionEnd's reason → outcome. */
export function copilotOutcome(reason: string | undefined): "completed" | "failed" | "timeout" | "cancelled" {
  if (reason === "error") return "failed";
  if (reason === "timeout") return "timeout";
  if (reason === "abort" || reason === "user_exit" || reason === "cancelled") return "cancelled";
  return "completed";
}

function rest(input: CopilotHookInput, used: readonly string[]): Record<string, unknown> {
  const skip = new Set(["sessionId", "cwd", "hookplane_usage", ...used]);
  return Object.fromEntries(Object.entries(input).filter(([key, value]) => !skip.has(key) && value !== undefined));
}

export function copilotSessionEvent(agent: string, input: CopilotHookInput): SessionEvent {
  const common = { agent, sessionId: input.sessionId, source: "copilot", title: `Copilot CLI session ${input.sessionId.slice(0, 8)}${input.cwd ? ` in ${input.cwd}` : ""}` };
  const event = (type: string, data: Record<string, unknown>, used: readonly string[], extra: Partial<SessionEvent> = {}): SessionEvent => ({
    ...common,
    type,
    data: { ...(input.cwd !== undefined ? { cwd: input.cwd } : {}), ...data, copilot: rest(input, used) },
    ...(input.hookplane_usage ? { usage: input.hookplane_usage } : {}),
    ...extra,
  });
  const tool = { toolName: input.toolName, toolInput: input.toolArgs ?? input.toolInput ?? {} };
  switch (input.hookEventName) {
    case "sessionStart":
      if (input.source === "resume") return event("session.resume", { source: input.source }, ["source"], { continues: true });
      return event("session.start", { source: input.source ?? "new", prompt: input.initialPrompt ?? "" }, ["source", "initialPrompt"]);
    case "userPromptSubmitted":
      return event("user.prompt.submit", { prompt: input.prompt ?? "" }, ["prompt"]);
    case "preToolUse":
      return event("tool.pre", tool, ["toolName", "toolArgs"]);
    case "permissionRequest":
      return event("tool.permission_request", tool, ["toolName", "toolInput"]);
    case "postToolUse": {
      const result = input.toolResult as { resultType?: string; textResultForLlm?: string } | undefined;
      const failed = result?.resultType === "failure" || result?.resultType === "error";
      return event(
        "tool.post",
        { ...tool, output: input.toolResult, isError: failed, ...(failed && typeof result?.textResultForLlm === "string" ? { error: result.textResultForLlm } : {}) },
        ["toolName", "toolArgs", "toolResult"],
      );
    }
    case "agentStop":
      return event("turn.end", { stopHookActive: input.stop_hook_active ?? false }, ["stop_hook_active"]);
    case "subagentStop": {
      const name = [input.agentName, input.agentType, input.subagentType].find((v) => typeof v === "string" && v !== "");
      return event("agent.stop", { agentName: (name as string | undefined) ?? "subagent", stopHookActive: input.stop_hook_active ?? false }, ["stop_hook_active"]);
    }
    case "errorOccurred": {
      const error = input.error as { message?: string } | string | undefined;
      const message = typeof error === "string" ? error : (error?.message ?? "an error occurred");
      return event("error", { message }, []);
    }
    case "notification":
      return event("notification", { message: typeof input.message === "string" ? input.message : "" }, []);
    case "sessionEnd":
      return event("session.end", { outcome: copilotOutcome(input.reason), reason: input.reason ?? "session ended" }, ["reason"]);
    default:
      return event(`copilot.${input.hookEventName}`, {}, []);
  }
}

export type CopilotHookOutput = {
  permissionDecision?: "allow" | "deny";
  permissionDecisionReason?: string;
  decision?: "block";
  reason?: string;
};

export function copilotHookOutput(hookEventName: string, result: DispatchResult | undefined): CopilotHookOutput {
  if (!result) return {};
  const reason = result.reason ?? "Blocked by a Hookplane hook";
  switch (hookEventName) {
    case "preToolUse":
      if (result.verdict === "block") return { permissionDecision: "deny", permissionDecisionReason: reason };
      return result.approval?.decision === "approve"
        ? { permissionDecision: "allow", permissionDecisionReason: `approved in Hookplane${result.approval.decidedBy ? ` by ${result.approval.decidedBy}` : ""}` }
        : {};
    case "agentStop":
    case "subagentStop":
      return result.verdict === "block" ? { decision: "block", reason } : {};
    default:
      return {};
  }
}
