import { agentIngestRoute } from "@/lib/features/bridge/agent-ingest-route";
import { copilotHookInputSchema, copilotHookOutput, copilotInputIssues, copilotSessionEvent } from "@/lib/features/bridge/copilot-cli-protocol";

/** Copilot CLI's hook stdin (with the event the bridge names) in, Copilot CLI's hook JSON out (docs/bridges/other-agents.md). */
export const POST = agentIngestRoute({
  command: "hookplane hook copilot --agent NAME --event EVENT",
  schema: copilotHookInputSchema,
  issues: copilotInputIssues,
  event: copilotSessionEvent,
  answer: (input, result) => copilotHookOutput(input.hookEventName, result),
});
