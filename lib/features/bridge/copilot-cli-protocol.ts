/**
 * GitHub Copilot CLI's hook protocol (`.github/hooks/*.json`, version 1; CLI 1.0.102), both ways.
 * Its stdin JSON is camelCase and does not name the event (only permissionRequest says
 * `hookName`): the bridge command names it (`hookplane hook copilot --event preToolUse`) and the
 * CLI sends it as `hookEventName`. Recorded payloads are in test/fixtures/bridges/copilot;
 * docs/bridges/other-agents.md has the table.
 *
 * What Copilot CLI reads back (its hooks reference, docs.github.com/en/copilot/reference/
 * copilot-cli-reference/cli-hooks-reference, and the 1.0.102 runtime's own field names):
 * preToolUse `permissionDecision` (deny with a reason, allow); userPromptSubmitted `decision:
 * "block"` with `reason` (no model turn runs; seen with the real CLI); permissionRequest `behavior`
 * (allow | deny) with `message`; agentStop / subagentStop `decision: "block"` with `reason`; and
 * `additionalContext`, which the CLI hands the model, on sessionStart, userPromptSubmitted and
 * postToolUse (seen by the model in copilot-cli-bridge.db.test.ts, though the reference says
 * "output processed: no" for the first two). Tool calls carry no id, so an approval belongs to
 * the one preToolUse that asked; permissionRequest, which follows a preToolUse that did not decide
 * (an allow or deny there settles the call: the real CLI then sends none), with the same arguments
 * less the description, is that call's: it asks tool.pre's `approve` hooks as Claude Code's
 * PermissionRequest does, and an approval already decided for the call answers at once.
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
      // Its toolInput is preToolUse's toolArgs less `description`: the call is the one whose arguments hold it.
      return event("tool.permission_request", tool, ["toolName", "toolInput"], { dispatch: { as: "tool.pre", only: ["approve"] }, callByInput: "contained" });
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
  behavior?: "allow" | "deny";
  message?: string;
  /** preToolUse: the arguments the tool runs with (1.0.102 applies them with an allow; modification-support.ts). */
  modifiedArgs?: Record<string, unknown>;
  decision?: "block";
  reason?: string;
  additionalContext?: string;
};

/** What the hooks had to say to the model: on a block the reason is said on its own, the rest goes along. */
function contextOf(result: DispatchResult): string | undefined {
  const texts = result.verdict === "block" ? [...result.context, ...(result.output ? [result.output] : [])] : result.reminders;
  return texts.length > 0 ? texts.join("\n\n") : undefined;
}

/** Events whose answer's `additionalContext` Copilot CLI 1.0.102 gives the model. */
const CONTEXT_EVENTS = new Set(["sessionStart", "userPromptSubmitted", "postToolUse"]);

function approvedBy(result: DispatchResult): string | undefined {
  if (result.approval?.decision !== "approve") return undefined;
  return `approved in Hookplane${result.approval.decidedBy ? ` by ${result.approval.decidedBy}` : ""}`;
}

/** A call Hookplane changed: the new arguments as `modifiedArgs`, with an allow. */
function copilotChangedCall(result: DispatchResult, toolInput: Record<string, unknown>): CopilotHookOutput {
  const approved = approvedBy(result);
  const by = approved ? `${approved}, with an edited input` : `input rewritten in Hookplane by hook ${(result.modifiedBy ?? []).join(", ")}`;
  return { permissionDecision: "allow", permissionDecisionReason: by, modifiedArgs: toolInput };
}

export function copilotHookOutput(hookEventName: string, result: DispatchResult | undefined): CopilotHookOutput {
  if (!result) return {};
  const reason = result.reason ?? "Blocked by a Hookplane hook";
  const context = CONTEXT_EVENTS.has(hookEventName) ? contextOf(result) : undefined;
  const withContext = context ? { additionalContext: context } : {};
  switch (hookEventName) {
    case "preToolUse": {
      if (result.verdict === "block") return { permissionDecision: "deny", permissionDecisionReason: reason };
      if (result.toolInput) return copilotChangedCall(result, result.toolInput);
      const approved = approvedBy(result);
      return approved ? { permissionDecision: "allow", permissionDecisionReason: approved } : {};
    }
    // Decides before Copilot's own permission flow (rules, --allow-all, its prompt); {} falls through to it.
    case "permissionRequest":
      if (result.verdict === "block") return { behavior: "deny", message: reason };
      // Its answer has no field for new arguments: an edited call cannot run from here.
      if (result.toolInput) return { behavior: "deny", message: "Copilot CLI cannot apply a rewritten input on a permission request: blocked rather than run as asked" }; // session-ingest blocks it first
      return approvedBy(result) ? { behavior: "allow" } : {};
    // A refused prompt: no model turn runs (Copilot shows the reason as a warning).
    case "userPromptSubmitted":
      return result.verdict === "block" ? { decision: "block", reason } : withContext;
    case "agentStop":
    case "subagentStop":
      return result.verdict === "block" ? { decision: "block", reason } : {};
    default:
      return withContext;
  }
}
