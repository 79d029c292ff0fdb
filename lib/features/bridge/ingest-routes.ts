/**
 * The ingest endpoints of every coding agent and of the generic runtime, by the last segment of
 * their path (`/api/v1/ingest/<name>`). Next serves them from app/api/v1/ingest/ (each route file
 * exports its handler from here), and server.ts serves the same handlers straight from node:http
 * (ingest-direct.ts): one definition, two ways in.
 */
import { getDatabase } from "@/db/client";
import { apiRoute, type ApiHandler } from "@/lib/platform/api/route";
import { agentIngestRoute, machineOf } from "./agent-ingest-route";
import { claudeHookInputSchema, claudeHookOutput, claudeInputIssues, claudeSessionEvent, codexHookOutput, CODEX_RUNTIME } from "./claude-code-protocol";
import { copilotHookInputSchema, copilotHookOutput, copilotInputIssues, copilotSessionEvent } from "./copilot-cli-protocol";
import { cursorHookInputSchema, cursorHookOutput, cursorInputIssues, cursorSessionEvent } from "./cursor-protocol";
import { geminiHookInputSchema, geminiHookOutput, geminiInputIssues, geminiSessionEvent } from "./gemini-cli-protocol";
import { ingestAnswer, ingestEventSchema } from "./ingest-requests";
import { ingestSessionEvent } from "./session-ingest";

export const INGEST_ROUTES = {
  /** Claude Code's hook stdin in, Claude Code's hook JSON out (api.md, External agents). */
  "claude-code": agentIngestRoute({
    command: "hookplane hook claude-code --agent NAME",
    schema: claudeHookInputSchema,
    issues: claudeInputIssues,
    event: (agent, input) => claudeSessionEvent(agent, input),
    answer: (input, result) => claudeHookOutput(input.hook_event_name, result),
  }),
  /** Codex's hook stdin in (Claude Code's protocol, Codex's events), Codex's hook JSON out (docs/bridges/other-agents.md). */
  codex: agentIngestRoute({
    command: "hookplane hook codex --agent NAME",
    schema: claudeHookInputSchema,
    issues: claudeInputIssues,
    event: (agent, input) => claudeSessionEvent(agent, input, CODEX_RUNTIME),
    answer: (input, result) => codexHookOutput(input.hook_event_name, result),
  }),
  /** Copilot CLI's hook stdin (with the event the bridge names) in, Copilot CLI's hook JSON out. */
  copilot: agentIngestRoute({
    command: "hookplane hook copilot --agent NAME --event EVENT",
    schema: copilotHookInputSchema,
    issues: copilotInputIssues,
    event: copilotSessionEvent,
    answer: (input, result) => copilotHookOutput(input.hookEventName, result),
  }),
  /** Cursor's hook stdin in, Cursor's hook JSON out. */
  cursor: agentIngestRoute({
    command: "hookplane hook cursor --agent NAME",
    schema: cursorHookInputSchema,
    issues: cursorInputIssues,
    event: cursorSessionEvent,
    answer: (input, result) => cursorHookOutput(input.hook_event_name, result),
  }),
  /** Gemini CLI's hook stdin in, Gemini CLI's hook JSON out. */
  "gemini-cli": agentIngestRoute({
    command: "hookplane hook gemini-cli --agent NAME",
    schema: geminiHookInputSchema,
    issues: geminiInputIssues,
    event: geminiSessionEvent,
    answer: (input, result) => geminiHookOutput(input.hook_event_name, result),
  }),
  /** A canonical event of any runtime's session in, the hooks' decision out (api.md, External agents). */
  events: apiRoute({ role: "ingest", body: ingestEventSchema }, async ({ request, principal, body }) => {
    const handle = await getDatabase();
    const { runId, seq, result } = await ingestSessionEvent(
      handle,
      principal,
      {
        agent: body.agent,
        sessionId: body.sessionId,
        source: body.source,
        type: body.event.type,
        data: body.event.data,
        title: `${body.source} session ${body.sessionId.slice(0, 8)}`,
        machine: machineOf(request.headers),
      },
      request.signal,
    );
    return ingestAnswer(runId, seq, result);
  }),
} satisfies Record<string, ApiHandler>;

export type IngestRouteName = keyof typeof INGEST_ROUTES;
