/**
 * Slack's interactivity request URL (/api/integrations/slack/interactions): Slack POSTs
 * `payload=<json>` (form-encoded) when someone clicks Approve, Deny or "Edit & approve" on an
 * approval message, and when they submit the editor that "Edit & approve" opens.
 *
 * Checked here, in order, before anything is read:
 * 1. Slack's request signature: `X-Slack-Signature` must be `v0=` + HMAC-SHA256 of
 *    `v0:<X-Slack-Request-Timestamp>:<raw body>` under the app's signing secret, compared in
 *    constant time, with a timestamp within five minutes of now (401 otherwise).
 * 2. Not seen before: each accepted signature is stored (slack_request_nonces), so the same
 *    signed request sent again inside the window is refused in every process (409).
 * Then one path of checks for every interaction (slack-decider.ts: the button's value, the linked
 * user, their membership and rights) and the interaction itself: a decision here, the editor in
 * slack-edit-modal.ts.
 *
 * Problems after the signature are told to the clicker alone (an ephemeral message through the
 * payload's response_url) and decide nothing; Slack gets its 200 either way, since it shows an
 * error on any other answer. A submitted editor is answered in the editor itself
 * (`response_action: "errors"`). A decision shows in the channel when the settlement updates the
 * message (approval-notices.ts).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Db } from "@/db/client";
import { rememberSlackSignature } from "@/db/queries/approval-notices";
import type { SafeFetchPolicy } from "@/lib/core/hooks/http-client";
import { decideApproval } from "./approval-decisions";
import { AppError } from "@/lib/platform/api/app-error";
import { noticeHttp } from "./approval-notices";
import { reachConfig, type ReachConfig } from "./reach-config";
import { checkSlackDecider, tellClicker, type SlackContext } from "./slack-decider";
import { slackPayloadSchema, type SlackPayload } from "./schema";
import { EDIT_ACTION, EDIT_CALLBACK_ID, openEditModal, submitEditedInput } from "./slack-edit-modal";

/** Slack's window: a request signed longer ago than this is refused. */
export const SLACK_TIMESTAMP_WINDOW_S = 5 * 60;
const ACTIONS = { hookplane_approve: "approve", hookplane_deny: "deny" } as const;

export type SignatureCheck = "ok" | "missing" | "stale" | "forged";

export function slackSignature(signingSecret: string, timestamp: string, rawBody: string): string {
  return `v0=${createHmac("sha256", signingSecret).update(`v0:${timestamp}:${rawBody}`).digest("hex")}`;
}

export function verifySlackSignature(params: { signingSecret: string; timestamp: string | null; signature: string | null; rawBody: string; nowMs: number }): SignatureCheck {
  const { timestamp, signature } = params;
  if (!timestamp || !signature) return "missing";
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(params.nowMs / 1000 - Number(timestamp)) > SLACK_TIMESTAMP_WINDOW_S) return "stale";
  const expected = Buffer.from(slackSignature(params.signingSecret, timestamp, params.rawBody));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? "ok" : "forged";
}

export interface SlackInteractionDeps {
  config?: ReachConfig;
  http?: SafeFetchPolicy;
  now?: () => number;
}

function error(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status, headers: { "cache-control": "no-store" } });
}

export async function handleSlackInteraction(db: Db, request: Request, deps: SlackInteractionDeps = {}): Promise<Response> {
  const config = deps.config ?? reachConfig();
  if (!config.slackSigningSecret) return error(404, "not_found", "Slack interactivity is not configured (HOOKPLANE_SLACK_SIGNING_SECRET)");
  const rawBody = await request.text();
  const check = verifySlackSignature({
    signingSecret: config.slackSigningSecret,
    timestamp: request.headers.get("x-slack-request-timestamp"),
    signature: request.headers.get("x-slack-signature"),
    rawBody,
    nowMs: (deps.now ?? Date.now)(),
  });
  if (check !== "ok") {
    const why = { missing: "the Slack signature headers are missing", stale: "the request's timestamp is not within five minutes of now", forged: "the signature does not match" }[check];
    return error(401, "unauthorized", `Not a request from Slack: ${why}`);
  }
  if (!(await rememberSlackSignature(db, { signature: request.headers.get("x-slack-signature")!, keepMs: 2 * SLACK_TIMESTAMP_WINDOW_S * 1000 }))) {
    return error(409, "conflict", "This request was received before; a replay decides nothing");
  }
  let payload: SlackPayload;
  try {
    const parsed = slackPayloadSchema.safeParse(JSON.parse(new URLSearchParams(rawBody).get("payload") ?? ""));
    if (!parsed.success) return error(400, "bad_request", "The payload is not a Slack interaction payload");
    payload = parsed.data;
  } catch {
    return error(400, "bad_request", "The body has no JSON `payload`");
  }
  const context: SlackContext = { config, http: deps.http ?? noticeHttp(config), now: (deps.now ?? Date.now)() };
  if (payload.type === "view_submission" && payload.view?.callback_id === EDIT_CALLBACK_ID) return submitEditedInput(db, payload, context);
  const action = payload.actions.find((a) => Object.hasOwn(ACTIONS, a.action_id) || a.action_id === EDIT_ACTION);
  // Not a button of ours (another app's block, a menu): nothing to do, and Slack wants its 200.
  if (payload.type !== "block_actions" || !action) return new Response(null, { status: 200 });
  if (action.action_id === EDIT_ACTION) return openEditModal(db, payload, action.value ?? "", context);
  return decideByButton(db, payload, action as { action_id: keyof typeof ACTIONS; value?: string }, context);
}

/** Approve or Deny: decides as the linked user, or tells them why not. */
async function decideByButton(db: Db, payload: SlackPayload, action: { action_id: keyof typeof ACTIONS; value?: string }, context: SlackContext): Promise<Response> {
  const refuse = (text: string) => {
    void tellClicker(context.http, payload, text);
    return new Response(null, { status: 200 });
  };
  const decision = ACTIONS[action.action_id];
  const check = await checkSlackDecider(db, {
    value: action.value ?? "",
    purpose: "decide",
    decision,
    user: payload.user,
    where: { channel: payload.channel?.id, messageTs: payload.message?.ts },
    now: context.now,
  });
  if (!check.ok) return refuse(check.message);
  try {
    await decideApproval(db, check.decider, check.approval.id, { decision });
  } catch (failure) {
    if (failure instanceof AppError && failure.status < 500) return refuse(`${failure.message}. Nothing was decided.`);
    throw failure;
  }
  return new Response(null, { status: 200 });
}
