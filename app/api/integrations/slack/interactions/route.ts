/**
 * Slack's interactivity request URL. Public (Slack signs its requests instead of holding a
 * token): lib/features/approvals/slack-interactions.ts verifies the signature before reading
 * anything else. Form-encoded by Slack, so not an apiRoute (which takes JSON).
 */
import { getDatabase } from "@/db/client";
import { handleSlackInteraction } from "@/lib/features/approvals/slack-interactions";
import { toErrorResponse } from "@/lib/platform/api/route";
import { databaseUnavailable } from "@/lib/platform/api/app-error";

export async function POST(request: Request): Promise<Response> {
  try {
    const handle = await getDatabase();
    if (!handle.available()) throw databaseUnavailable();
    return await handleSlackInteraction(handle.db, request);
  } catch (error) {
    return toErrorResponse(error);
  }
}
