import { getDatabase } from "@/db/client";
import { AppError } from "@/lib/platform/api/app-error";
import { apiRoute } from "@/lib/platform/api/route";
import { cursorHookInputSchema, cursorHookOutput, cursorInputIssues, cursorSessionEvent } from "@/lib/features/bridge/cursor-protocol";
import { ingestSessionEvent } from "@/lib/features/bridge/session-ingest";

/** Cursor's hook stdin in, Cursor's hook JSON out (docs/bridges/other-agents.md). */
export const POST = apiRoute({ role: "operator", body: cursorHookInputSchema }, async ({ request, principal, body }) => {
  const agent = request.headers.get("x-hookplane-agent")?.trim();
  if (!agent) throw new AppError("bad_request", "Name the agent in the X-Hookplane-Agent header (hookplane hook cursor --agent NAME)");
  const issues = cursorInputIssues(body);
  if (issues.length > 0) throw new AppError("validation_failed", `${issues[0].path}: ${issues[0].message}`, issues);
  const handle = await getDatabase();
  const { result } = await ingestSessionEvent(handle, principal, cursorSessionEvent(agent, body), request.signal);
  return cursorHookOutput(body.hook_event_name, result);
});
