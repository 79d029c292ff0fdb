import { getDatabase } from "@/db/client";
import { AppError } from "@/lib/platform/api/app-error";
import { apiRoute } from "@/lib/platform/api/route";
import { geminiHookInputSchema, geminiHookOutput, geminiInputIssues, geminiSessionEvent } from "@/lib/features/bridge/gemini-cli-protocol";
import { ingestSessionEvent } from "@/lib/features/bridge/session-ingest";

/** Gemini CLI's hook stdin in, Gemini CLI's hook JSON out (docs/bridges/other-agents.md). */
export const POST = apiRoute({ role: "operator", body: geminiHookInputSchema }, async ({ request, principal, body }) => {
  const agent = request.headers.get("x-hookplane-agent")?.trim();
  if (!agent) throw new AppError("bad_request", "Name the agent in the X-Hookplane-Agent header (hookplane hook gemini-cli --agent NAME)");
  const issues = geminiInputIssues(body);
  if (issues.length > 0) throw new AppError("validation_failed", `${issues[0].path}: ${issues[0].message}`, issues);
  const handle = await getDatabase();
  const { result } = await ingestSessionEvent(handle, principal, geminiSessionEvent(agent, body), request.signal);
  return geminiHookOutput(body.hook_event_name, result);
});
