/**
 * The ingest endpoints of every coding agent and of the generic runtime, by the last segment of
 * their path (`/api/v1/ingest/<name>`). Next serves them from app/api/v1/ingest/ (each route file
 * exports its handler from here), and server.ts serves the same handlers straight from node:http
 * (ingest-direct.ts): one definition, two ways in.
 */
import { getDatabase } from "@/db/client";
import { apiRoute, type ApiHandler } from "@/lib/platform/api/route";
import { agentIngestRoute, agentProtocol, machineOf } from "./agent-ingest-route";
import { offlineIngestRoute } from "./offline-ingest";
import { claudeHookInputSchema, claudeInputIssues, claudeSessionEvent, codexHookOutput, CODEX_RUNTIME } from "./claude-code-protocol";
import { claudeSettingsAnswer, claudeSettingsEvent, claudeSettingsInputSchema, claudeSettingsIssues } from "./claude-settings-in-cursor";
import { copilotHookInputSchema, copilotHookOutput, copilotInputIssues, copilotSessionEvent } from "./copilot-cli-protocol";
import { cursorHookInputSchema, cursorHookOutput, cursorInputIssues, cursorSessionEvent } from "./cursor-protocol";
import { geminiHookInputSchema, geminiHookOutput, geminiInputIssues, geminiSessionEvent } from "./gemini-cli-protocol";
import { ingestAnswer, ingestEventSchema } from "./ingest-requests";
import { ingestSessionEvent } from "./session-ingest";
import { MODIFICATION_SUPPORT } from "@/lib/core/dialects/modification-support";

/**
 * Each coding agent's hook protocol: its stdin JSON in, a session event, its hook answer out.
 * Exported for scripts/bridge-capabilities.ts, which asks it what each recorded event can enforce.
 */
export const AGENT_PROTOCOLS = {
  /**
   * Claude Code's hook stdin in, Claude Code's hook JSON out (api.md, External agents); and
   * Cursor's, when Cursor runs the hooks of .claude/settings*.json (claude-settings-in-cursor.ts).
   */
  "claude-code": agentProtocol({
    // Cursor's payload is answered in both shapes, but only Cursor applies it: Cursor's support holds.
    // Qwen Code speaks Claude Code's protocol but applies less of it (the CLI names it).
    applies: (body) =>
      body.via === "cursor" ? MODIFICATION_SUPPORT.cursor : body.input.hookplane_runtime === "qwen-code" ? MODIFICATION_SUPPORT["qwen-code"] : MODIFICATION_SUPPORT["claude-code"],
    command: "hookplane hook claude-code --agent NAME",
    schema: claudeSettingsInputSchema,
    issues: claudeSettingsIssues,
    event: claudeSettingsEvent,
    answer: claudeSettingsAnswer,
  }),
  /** Codex's hook stdin in (Claude Code's protocol, Codex's events), Codex's hook JSON out (docs/bridges/other-agents.md). */
  codex: agentProtocol({
    applies: MODIFICATION_SUPPORT.codex,
    command: "hookplane hook codex --agent NAME",
    schema: claudeHookInputSchema,
    issues: claudeInputIssues,
    event: (agent, input) => claudeSessionEvent(agent, input, CODEX_RUNTIME),
    answer: (input, result) => codexHookOutput(input.hook_event_name, result),
  }),
  /** Copilot CLI's hook stdin (with the event the bridge names) in, Copilot CLI's hook JSON out. */
  copilot: agentProtocol({
    applies: MODIFICATION_SUPPORT.copilot,
    command: "hookplane hook copilot --agent NAME --event EVENT",
    schema: copilotHookInputSchema,
    issues: copilotInputIssues,
    event: copilotSessionEvent,
    answer: (input, result) => copilotHookOutput(input.hookEventName, result),
  }),
  /** Cursor's hook stdin in, Cursor's hook JSON out. */
  cursor: agentProtocol({
    applies: MODIFICATION_SUPPORT.cursor,
    command: "hookplane hook cursor --agent NAME",
    schema: cursorHookInputSchema,
    issues: cursorInputIssues,
    event: cursorSessionEvent,
    answer: (input, result) => cursorHookOutput(input.hook_event_name, result),
  }),
  /** Gemini CLI's hook stdin in, Gemini CLI's hook JSON out. */
  "gemini-cli": agentProtocol({
    applies: MODIFICATION_SUPPORT["gemini-cli"],
    command: "hookplane hook gemini-cli --agent NAME",
    schema: geminiHookInputSchema,
    issues: geminiInputIssues,
    event: geminiSessionEvent,
    answer: (input, result) => geminiHookOutput(input.hook_event_name, result),
  }),
};

export const INGEST_ROUTES = {
  "claude-code": agentIngestRoute(AGENT_PROTOCOLS["claude-code"]),
  codex: agentIngestRoute(AGENT_PROTOCOLS.codex),
  copilot: agentIngestRoute(AGENT_PROTOCOLS.copilot),
  cursor: agentIngestRoute(AGENT_PROTOCOLS.cursor),
  "gemini-cli": agentIngestRoute(AGENT_PROTOCOLS["gemini-cli"]),
  /** What the CLI decided alone while Hookplane was unreachable, sent once it answers again (offline-ingest.ts). */
  offline: offlineIngestRoute(AGENT_PROTOCOLS),
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
        applies: { agent: body.source, ...(body.applies ?? { input: false, output: false, ask: false }) },
      },
      () => request.signal,
    );
    return ingestAnswer(runId, seq, result);
  }),
} satisfies Record<string, ApiHandler>;

export type IngestRouteName = keyof typeof INGEST_ROUTES;
