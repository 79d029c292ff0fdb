import { getDatabase } from "@/db/client";
import { AppError } from "@/lib/platform/api/app-error";
import { apiRoute } from "@/lib/platform/api/route";
import { claudeHookInputSchema, claudeHookOutput, claudeInputIssues, claudeSessionEvent } from "@/lib/features/bridge/claude-code-protocol";
import { ingestSessionEvent } from "@/lib/features/bridge/session-ingest";

/** Claude Code's hook stdin in, Claude Code's hook JSON out (api.md, External agents). */
export const POST = apiRoute({ role: "operator", body: claudeHookInputSchema }, async ({ request, principal, body }) => {
  const agent = request.headers.get("x-hookplane-agent")?.trim();
  if (!agent) throw new AppError("bad_request", "Name the agent in the X-Hookplane-Agent header (hookplane hook claude-code --agent NAME)");
  const issues = claudeInputIssues(body);
  if (issues.length > 0) throw new AppError("validation_failed", `${issues[0].path}: ${issues[0].message}`, issues);
  const handle = await getDatabase();
  const { result } = await ingestSessionEvent(handle, principal, claudeSessionEvent(agent, body), request.signal);
  return claudeHookOutput(body.hook_event_name, result);
});
