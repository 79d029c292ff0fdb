/**
 * Calls made with the bot token a chat message about an approval was posted with (the hook's
 * `tokenSecret`, kept on the message's row): updating the message once the approval is settled
 * (approval-notices.ts) and opening Slack's editor for an "Edit & approve" click
 * (slack-edit-modal.ts). The token goes only to hosts its secret names, like every secret.
 */
import type { SecretPort } from "@/lib/core/hooks/ports";
import { HookHttpError, safeFetch, type SafeFetchPolicy } from "@/lib/core/hooks/http-client";
import { secretsNotAllowedFor } from "@/lib/core/hooks/secret-placement";

/** The token's value, when it is set and may be sent to `url`; otherwise why not. */
export async function botToken(secrets: SecretPort, tokenSecret: string, url: string): Promise<{ token: string } | { failure: string }> {
  const found = await secrets.get(tokenSecret);
  if (found === undefined) return { failure: `secret ${tokenSecret} is not set` };
  const token = typeof found === "string" ? { value: found, hosts: [] } : found;
  const notAllowed = secretsNotAllowedFor(new URL(url).hostname, new Map([[tokenSecret, token]]));
  return notAllowed ? { failure: notAllowed } : { token: token.value };
}

/**
 * One Slack Web API call (a JSON POST with the bot token): Slack answers 200 with `{ok: false,
 * error}` when it refuses, so only `ok: true` is success.
 */
export async function callSlackApi(http: SafeFetchPolicy, request: { url: string; token: string; body: unknown }): Promise<{ failure?: string }> {
  try {
    const response = await safeFetch(http, {
      url: request.url,
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", authorization: `Bearer ${request.token}` },
      body: JSON.stringify(request.body),
      timeoutMs: 10_000,
      signal: AbortSignal.timeout(15_000),
    });
    if (response.status < 200 || response.status >= 300) return { failure: `HTTP ${response.status}` };
    const answer = safeJson(response.body) as { ok?: boolean; error?: string } | undefined;
    return answer?.ok === true ? {} : { failure: `Slack refused: ${answer?.error ?? "not Slack's answer"}` };
  } catch (error) {
    return { failure: (error as HookHttpError).message };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
