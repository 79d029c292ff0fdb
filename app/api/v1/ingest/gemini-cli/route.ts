import { agentIngestRoute } from "@/lib/features/bridge/agent-ingest-route";
import { geminiHookInputSchema, geminiHookOutput, geminiInputIssues, geminiSessionEvent } from "@/lib/features/bridge/gemini-cli-protocol";

/** Gemini CLI's hook stdin in, Gemini CLI's hook JSON out (docs/bridges/other-agents.md). */
export const POST = agentIngestRoute({
  command: "hookplane hook gemini-cli --agent NAME",
  schema: geminiHookInputSchema,
  issues: geminiInputIssues,
  event: geminiSessionEvent,
  answer: (input, result) => geminiHookOutput(input.hook_event_name, result),
});
