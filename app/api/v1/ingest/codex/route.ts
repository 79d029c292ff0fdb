import { agentIngestRoute } from "@/lib/features/bridge/agent-ingest-route";
import { claudeHookInputSchema, claudeInputIssues, claudeSessionEvent, codexHookOutput, CODEX_RUNTIME } from "@/lib/features/bridge/claude-code-protocol";

/** Codex's hook stdin in (Claude Code's protocol, Codex's events), Codex's hook JSON out (docs/bridges/other-agents.md). */
export const POST = agentIngestRoute({
  command: "hookplane hook codex --agent NAME",
  schema: claudeHookInputSchema,
  issues: claudeInputIssues,
  event: (agent, input) => claudeSessionEvent(agent, input, CODEX_RUNTIME),
  answer: (input, result) => codexHookOutput(input.hook_event_name, result),
});
