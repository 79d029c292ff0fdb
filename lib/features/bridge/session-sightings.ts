/**
 * `POST /api/v1/ingest/otel/v1/logs`: a coding agent's OpenTelemetry logs (Claude Code's, with
 * `OTEL_EXPORTER_OTLP_ENDPOINT=<hookplane>/api/v1/ingest/otel` and the person's bridge credential
 * and the agent's name in `OTEL_EXPORTER_OTLP_HEADERS`), kept as one sighting per session: the
 * hooks it registered, its tool calls and hook runs. Sessions that ran without Hookplane's guards
 * show on the agent's page and fire the `unguarded_sessions` alert. Nothing here decides a call:
 * telemetry arrives seconds late, and a developer can turn it off like the hooks (managed settings
 * keep both on; docs/coding-agents.md).
 */
import { getAgent } from "@/db/queries/agents";
import { recordSighting } from "@/db/queries/coding-agent-sightings";
import { AppError } from "@/lib/platform/api/app-error";
import { apiRoute, parseWith, readJsonBody } from "@/lib/platform/api/route";
import { actorKeyOf } from "@/lib/platform/auth/roles";
import { otlpLogsSchema, sessionsInLogs } from "./claude-code-telemetry";

export const otelLogsRoute = apiRoute({ role: "ingest" }, async ({ request, db, principal }) => {
  const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    throw new AppError("unsupported_media_type", "Send OpenTelemetry logs as OTLP/HTTP JSON: set OTEL_EXPORTER_OTLP_LOGS_PROTOCOL=http/json");
  }
  const name = request.headers.get("x-hookplane-agent")?.trim();
  if (!name) throw AppError.badRequest("Name the agent: OTEL_EXPORTER_OTLP_HEADERS=\"Authorization=Bearer <bridge credential>,x-hookplane-agent=NAME\"");
  const logs = parseWith(otlpLogsSchema, await readJsonBody(request));
  const agent = await getAgent(db, { projectId: principal.projectId, ref: name });
  if (!agent) throw AppError.notFound(`Agent "${name}"`);
  const { sessions, ignored } = sessionsInLogs(logs);
  for (const session of sessions) {
    await recordSighting(db, {
      projectId: principal.projectId,
      agentId: agent.id,
      actorKey: actorKeyOf(principal),
      actorLabel: principal.email ?? principal.label,
      codingAgent: session.codingAgent,
      externalSessionId: session.sessionId,
      cliVersion: session.cliVersion,
      hookInventory: session.registered.length > 0 || session.inventoryComplete ? session.registered : undefined,
      safeMode: session.safeMode,
      toolCalls: session.toolCalls,
      hookRuns: session.hookRuns,
    });
  }
  // OTLP's answer: partialSuccess names what was not taken (here: records of other services).
  return ignored > 0 ? { partialSuccess: { rejectedLogRecords: ignored, errorMessage: "only Claude Code's session events are read" } } : {};
});
