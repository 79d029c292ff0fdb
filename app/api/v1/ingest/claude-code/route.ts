import { agentIngestRoute } from "@/lib/features/bridge/agent-ingest-route";
import { claudeHookInputSchema, claudeHookOutput, claudeInputIssues, claudeSessionEvent } from "@/lib/features/bridge/claude-code-protocol";

/** Claude Code's hook stdin in, Claude Code's hook JSON out (api.md, External agents). */
export const POST = agentIngestRoute({
  command: "hookplane hook claude-code --agent NAME",
  schema: claudeHookInputSchema,
  issues: claudeInputIssues,
  event: (agent, input) => claudeSessionEvent(agent, input),
  answer: (input, result) => claudeHookOutput(input.hook_event_name, result),
});
