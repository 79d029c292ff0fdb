import { getDatabase } from "@/db/client";
import { AppError } from "@/lib/platform/api/app-error";
import { apiRoute } from "@/lib/platform/api/route";
import { copilotHookInputSchema, copilotHookOutput, copilotInputIssues, copilotSessionEvent } from "@/lib/features/bridge/copilot-cli-protocol";
import { ingestSessionEvent } from "@/lib/features/bridge/session-ingest";

/** Copilot CLI's hook stdin (with the event the bridge names) in, Copilot CLI's hook JSON out (docs/bridges/other-agents.md). */
export const POST = apiRoute({ role: "operator", body: copilotHookInputSchema }, async ({ request, principal, body }) => {
  const agent = request.headers.get("x-hookplane-agent")?.trim();
  if (!agent) throw new AppError("bad_request", "Name the agent in the X-Hookplane-Agent header (hookplane hook copilot --agent NAME --event EVENT)");
  const issues = copilotInputIssues(body);
  if (issues.length > 0) throw new AppError("validation_failed", `${issues[0].path}: ${issues[0].message}`, issues);
  const handle = await getDatabase();
  const { result } = await ingestSessionEvent(handle, principal, copilotSessionEvent(agent, body), request.signal);
  return copilotHookOutput(body.hookEventName, result);
});
