/**
 * Slack's interactive buttons on approval messages: Slack POSTs `payload=<json>` (form-encoded)
 * to /api/integrations/slack/interactions when someone clicks Approve or Deny.
 *
 * What is checked, in order, before anything is decided:
 * 1. Slack's request signature: `X-Slack-Signature` must be `v0=` + HMAC-SHA256 of
 *    `v0:<X-Slack-Request-Timestamp>:<raw body>` under the app's signing secret, compared in
 *    constant time, with a timestamp within five minutes of now (401 otherwise).
 * 2. Not seen before: each accepted signature is stored (slack_request_nonces), so the same
 *    signed request sent again inside the window is refused in every process (409).
 * 3. The button's value is a decision-link token (decision-links.ts) for this approval, run and
 *    tool input, of the button's own decision, not expired, the approval still pending.
 * 4. The Slack user is a Hookplane user: an admin sets each person's Slack member id (`U…`) in
 *    Settings → Users, and the click decides as that user. Chosen over looking the email up with
 *    users.info: no extra call (and no users:read.email scope) on the path that resumes the run,
 *    and a Slack workspace's emails need not be Hookplane's. The user must be a member of the
 *    approval's project (instance admins are admin in every project) and, with their role there,
 *    among the approval's approvers, or an operator when it names none.
 * Problems after the signature are told to the clicker alone (an ephemeral message through the
 * payload's response_url) and decide nothing; Slack gets its 200 either way, since it shows an
 * error on any other answer. A decision shows in the channel when the settlement updates the
 * message (approval-notices.ts).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/db/client";
import { getUserBySlackId, rememberSlackSignature } from "@/db/queries/approval-notices";
import { getMemberRole } from "@/db/queries/projects";
import { safeFetch, type SafeFetchPolicy } from "@/lib/core/hooks/http-client";
import { decideApproval } from "@/lib/features/runs/run-service";
import { AppError } from "@/lib/platform/api/app-error";
import { logger } from "@/lib/platform/logger";
import { noticeHttp } from "./approval-notices";
import { readDecisionToken } from "./decision-links";
import { approvalForClaims } from "./decision-page";
import { reachConfig, type ReachConfig } from "./reach-config";

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

const payloadSchema = z.looseObject({
  type: z.string(),
  user: z.looseObject({ id: z.string().min(1).max(64), username: z.string().max(200).optional(), name: z.string().max(200).optional() }),
  channel: z.looseObject({ id: z.string().max(64), name: z.string().max(200).optional() }).optional(),
  message: z.looseObject({ ts: z.string().max(64) }).optional(),
  response_url: z.url().max(2000).optional(),
  actions: z.array(z.looseObject({ action_id: z.string().max(255), value: z.string().max(2000).optional() })).max(25).default([]),
});
type SlackPayload = z.infer<typeof payloadSchema>;

export interface SlackInteractionDeps {
  config?: ReachConfig;
  http?: SafeFetchPolicy;
  now?: () => number;
}

function error(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status, headers: { "cache-control": "no-store" } });
}

/** Tells the clicker alone, through the payload's response_url (the message itself stays). */
async function tellClicker(http: SafeFetchPolicy, payload: SlackPayload, text: string): Promise<void> {
  if (!payload.response_url) return;
  try {
    await safeFetch(http, {
      url: payload.response_url,
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ response_type: "ephemeral", replace_original: false, text }),
      timeoutMs: 5_000,
      signal: AbortSignal.timeout(6_000),
    });
  } catch (failure) {
    logger.warn({ err: failure }, "could not tell a Slack user why their click decided nothing");
  }
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
    const parsed = payloadSchema.safeParse(JSON.parse(new URLSearchParams(rawBody).get("payload") ?? ""));
    if (!parsed.success) return error(400, "bad_request", "The payload is not a Slack interaction payload");
    payload = parsed.data;
  } catch {
    return error(400, "bad_request", "The body has no JSON `payload`");
  }
  const action = payload.actions.find((a) => a.action_id in ACTIONS);
  // Not a button of ours (another app's block, a menu): nothing to do, and Slack wants its 200.
  if (payload.type !== "block_actions" || !action) return new Response(null, { status: 200 });
  const http = deps.http ?? noticeHttp(config);
  const refuse = (text: string) => {
    void tellClicker(http, payload, text);
    return new Response(null, { status: 200 });
  };

  const reading = readDecisionToken(action.value ?? "");
  const decision = ACTIONS[action.action_id as keyof typeof ACTIONS];
  if (!reading.ok || reading.claims.decision !== decision) return refuse("This button is not one Hookplane made; nothing was decided.");
  const found = await approvalForClaims(db, reading.claims, (deps.now ?? Date.now)());
  if ("refusal" in found) {
    const state = found.refusal;
    return refuse(state.kind === "refused" ? `${state.title}. ${state.message}` : "Nothing was decided.");
  }
  const user = await getUserBySlackId(db, { slackUserId: payload.user.id });
  if (!user || user.disabled) {
    return refuse(
      `Your Slack account (${payload.user.id}) is not linked to a Hookplane user, so nothing was decided. An admin sets your Slack member id in Hookplane's Settings → Users; or decide in the dashboard.`,
    );
  }
  // The clicker acts in the approval's project: their role there (an instance admin is admin in
  // every project); someone who is not a member decides nothing, approvers or not.
  const role = user.instanceAdmin ? "admin" : await getMemberRole(db, { projectId: found.approval.projectId, userId: user.id });
  if (!role) {
    return refuse(`You (${user.email}) are not a member of the project this approval belongs to, so nothing was decided.`);
  }
  try {
    await decideApproval(
      db,
      {
        label: user.email,
        via: "slack",
        identity: { email: user.email, role },
        withoutApprovers: "operator",
        note: { slack: { userId: payload.user.id, username: payload.user.username ?? payload.user.name, channel: payload.channel?.id, messageTs: payload.message?.ts } },
      },
      found.approval.id,
      { decision },
    );
  } catch (failure) {
    if (failure instanceof AppError && failure.status < 500) return refuse(`${failure.message}. Nothing was decided.`);
    throw failure;
  }
  return new Response(null, { status: 200 });
}
