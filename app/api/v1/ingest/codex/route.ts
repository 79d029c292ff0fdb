import { getDatabase } from "@/db/client";
import { AppError } from "@/lib/platform/api/app-error";
import { apiRoute } from "@/lib/platform/api/route";
import { claudeHookInputSchema, claudeInputIssues, claudeSessionEvent, codexHookOutput, CODEX_RUNTIME } from "@/lib/features/bridge/claude-code-protocol";
import { ingestSessionEvent } from "@/lib/features/bridge/session-ingest";

/** Codex's hook stdin in (Claude Code's protocol, Codex's events), Codex's hook JSON out (docs/bridges/other-agents.md). */
export const POST = apiRoute({ role: "operator", body: claudeHookInputSchema }, async ({ request, principal, body }) => {
  const agent = request.headers.get("x-hookplane-agent")?.trim();
  if (!agent) throw new AppError("bad_request", "Name the agent in the X-Hookplane-Agent header (hookplane hook codex --agent NAME)");
  const issues = claudeInputIssues(body);
  if (issues.length > 0) throw new AppError("validation_failed", `${issues[0].path}: ${issues[0].message}`, issues);
  const handle = await getDatabase();
  const { result } = await ingestSessionEvent(handle, principal, claudeSessionEvent(agent, body, CODEX_RUNTIME), request.signal);
  return codexHookOutput(body.hook_event_name, result);
});
