/**
 * "Edit & approve" in Slack: the button opens a modal (Slack's `views.open`, with the click's
 * `trigger_id`, which Slack honours for three seconds) holding the tool input as pretty JSON in a
 * multiline text field; submitting it approves the call with the edited input, exactly as the API
 * does (decideApproval with `input`), decided via "slack".
 *
 * The click passes every check of a click (slack-decider.ts) and the edit's own: the approver may
 * rewrite calls, the agent can run a rewritten input and the input holds no stored secret
 * (input-edit-support.ts), and its JSON fits Slack's text field (3000 characters); otherwise the
 * clicker is told, ephemerally, to edit it in the dashboard. The modal is opened with the bot
 * token the approval's message was posted with (the message's row keeps the secret's name).
 *
 * The modal carries the edit button's signed value in `private_metadata` (Slack keeps it and
 * sends it back with the submission; only this app can set it, but it is verified again anyway),
 * with the message's channel and ts for the audit row. The submission may come minutes later, so
 * every check runs again; a refusal, JSON that is not an object, or a decision that fails is
 * answered in the modal (`response_action: "errors"` on the text field) and decides nothing.
 */
import type { Db } from "@/db/client";
import { listApprovalNotices } from "@/db/queries/approval-notices";
import { runLink } from "@/lib/core/hooks/notice-text";
import { decideApproval } from "./approval-decisions";
import { decisionSchema, type SlackPayload } from "./schema";
import { storeSecretPort } from "@/lib/features/secrets/secret-port";
import { AppError } from "@/lib/platform/api/app-error";
import { logger } from "@/lib/platform/logger";
import { approvalLink, secretMasker } from "./approval-notices";
import { botToken, callSlackApi } from "./bot-token-calls";
import { inputEditCheck } from "./input-edit-support";
import { checkSlackDecider, tellClicker, type SlackContext, type SlackWhere } from "./slack-decider";

export const EDIT_ACTION = "hookplane_edit";
export const EDIT_CALLBACK_ID = "hookplane_edit_input";
/** The input block's id: `response_action: "errors"` names it to show a message under the field. */
export const EDIT_BLOCK_ID = "hookplane_input";
const EDIT_FIELD_ID = "input";
/** Slack's limit on a plain_text_input's value (and so on the JSON it can start from). */
export const SLACK_TEXT_INPUT_MAX = 3000;

/** What the modal keeps for its submission. */
interface EditMetadata extends SlackWhere {
  value: string;
}

const okay = () => new Response(null, { status: 200 });

/** The click: checks, then the modal; any refusal is told to the clicker alone. */
export async function openEditModal(db: Db, payload: SlackPayload, value: string, context: SlackContext): Promise<Response> {
  const refuse = (text: string) => {
    void tellClicker(context.http, payload, text);
    return okay();
  };
  const where: SlackWhere = { channel: payload.channel?.id, messageTs: payload.message?.ts };
  const check = await checkSlackDecider(db, { value, purpose: "edit", decision: "approve", user: payload.user, where, now: context.now });
  if (!check.ok) return refuse(check.message);
  const { approval } = check;
  const inDashboard = `<${approvalLink(context.config.publicUrl, approval.id)}|Open the approval>`;
  const edit = await inputEditCheck(db, approval, await secretMasker(db));
  if (!edit.editable) return refuse(`${edit.why}; approve or deny it as asked, or edit it in the dashboard: ${inDashboard}. Nothing was decided.`);
  if (edit.json.length > SLACK_TEXT_INPUT_MAX) {
    return refuse(`This tool input is ${edit.json.length} characters of JSON, more than the ${SLACK_TEXT_INPUT_MAX} a Slack text field holds: edit it in the dashboard instead: ${inDashboard}. Nothing was decided.`);
  }
  if (!payload.trigger_id) return refuse(`Slack sent no trigger_id to open the editor with; edit it in the dashboard: ${inDashboard}. Nothing was decided.`);
  // The message clicked, else any Slack message of this approval: its hook's bot token opens the modal.
  const notices = (await listApprovalNotices(db, { approvalId: approval.id })).filter((n) => n.service === "slack");
  const notice = notices.find((n) => n.channel === where.channel && n.messageId === where.messageTs) ?? notices[0];
  if (!notice) return refuse(`No Slack message of this approval is known here, so no bot token to open the editor with; edit it in the dashboard: ${inDashboard}.`);
  const url = `${context.config.slackBaseUrl}/views.open`;
  const token = await botToken(storeSecretPort(db, approval.projectId), notice.tokenSecret, url);
  const metadata: EditMetadata = { value, ...where };
  const opened =
    "failure" in token
      ? token
      : await callSlackApi(context.http, {
          url,
          token: token.token,
          body: { trigger_id: payload.trigger_id, view: editView({ ...approval, json: edit.json, publicUrl: context.config.publicUrl, metadata }) },
        });
  if (opened.failure) {
    logger.warn({ approvalId: approval.id, failure: opened.failure }, "could not open Slack's editor for an approval");
    return refuse(`Slack would not open the editor (${opened.failure}); edit it in the dashboard: ${inDashboard}. Nothing was decided.`);
  }
  return okay();
}

/** Slack's mrkdwn treats these three as markup. */
function mrkdwnText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function editView(params: { id: string; runId: string; agentName: string; toolName: string | null; json: string; publicUrl: string; metadata: EditMetadata }) {
  const links = `<${approvalLink(params.publicUrl, params.id)}|Open the approval> · <${runLink(params.publicUrl, params.runId)}|Open the run>`;
  return {
    type: "modal",
    callback_id: EDIT_CALLBACK_ID,
    private_metadata: JSON.stringify(params.metadata),
    title: { type: "plain_text", text: "Edit & approve" },
    submit: { type: "plain_text", text: "Approve" },
    close: { type: "plain_text", text: "Cancel" },
    blocks: [
      {
        type: "section",
        text: { type: "mrkdwn", text: `Agent *${mrkdwnText(params.agentName)}* wants to run *${mrkdwnText(params.toolName ?? "")}*. Approving runs it with this JSON object instead of what was asked.` },
      },
      {
        type: "input",
        block_id: EDIT_BLOCK_ID,
        label: { type: "plain_text", text: "Tool input (JSON object)" },
        element: { type: "plain_text_input", action_id: EDIT_FIELD_ID, multiline: true, initial_value: params.json, max_length: SLACK_TEXT_INPUT_MAX },
      },
      { type: "context", elements: [{ type: "mrkdwn", text: links }] },
    ],
  };
}

/** The modal's answer to Slack: a message under the text field, and the modal stays open. */
function fieldError(message: string): Response {
  return Response.json({ response_action: "errors", errors: { [EDIT_BLOCK_ID]: message } });
}

function readMetadata(text: string | undefined): EditMetadata | undefined {
  try {
    const parsed = JSON.parse(text ?? "") as Partial<EditMetadata> | null;
    if (typeof parsed?.value !== "string") return undefined;
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    return { value: parsed.value, channel: str(parsed.channel), messageTs: str(parsed.messageTs) };
  } catch {
    return undefined;
  }
}

/** The submission: every check again, then the edited input, then the decision (an empty 200 closes the modal). */
export async function submitEditedInput(db: Db, payload: SlackPayload, context: SlackContext): Promise<Response> {
  const metadata = readMetadata(payload.view?.private_metadata);
  if (!metadata) return fieldError("This editor was not opened by Hookplane; nothing was decided.");
  const check = await checkSlackDecider(db, { value: metadata.value, purpose: "edit", decision: "approve", user: payload.user, where: metadata, now: context.now });
  if (!check.ok) return fieldError(check.message);
  const text = payload.view?.state?.values[EDIT_BLOCK_ID]?.[EDIT_FIELD_ID]?.value ?? "";
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return fieldError(`Not JSON (${(error as Error).message}); nothing was decided.`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return fieldError("The input must be one JSON object ({ … }), like the tool's input; nothing was decided.");
  }
  const checked = decisionSchema.safeParse({ decision: "approve", input: parsed });
  if (!checked.success) return fieldError(`${checked.error.issues[0].message}; nothing was decided.`);
  try {
    await decideApproval(db, check.decider, check.approval.id, { decision: "approve", input: checked.data.input });
  } catch (failure) {
    if (failure instanceof AppError && failure.status < 500) return fieldError(`${failure.message}. Nothing was decided.`);
    throw failure;
  }
  return okay();
}
