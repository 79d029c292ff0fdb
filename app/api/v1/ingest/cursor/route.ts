import { agentIngestRoute } from "@/lib/features/bridge/agent-ingest-route";
import { cursorHookInputSchema, cursorHookOutput, cursorInputIssues, cursorSessionEvent } from "@/lib/features/bridge/cursor-protocol";

/** Cursor's hook stdin in, Cursor's hook JSON out (docs/bridges/other-agents.md). */
export const POST = agentIngestRoute({
  command: "hookplane hook cursor --agent NAME",
  schema: cursorHookInputSchema,
  issues: cursorInputIssues,
  event: cursorSessionEvent,
  answer: (input, result) => cursorHookOutput(input.hook_event_name, result),
});
