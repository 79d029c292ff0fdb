/**
 * Whether a waiting tool call's input may be rewritten from Slack before approving, and the text
 * its editor starts from. Asked when the message is posted (no "Edit & approve" button where the
 * answer is no) and again on the click (a secret may have been stored since).
 *
 * - A tool call only: an approval about something else has no input to rewrite.
 * - The agent must run the rewrite: Hookplane's own agents do (the worker runs the call); a
 *   bridged session's agent does only where its hook protocol takes a rewritten input
 *   (lib/core/dialects/modification-support.ts). Elsewhere an edit would only block the call.
 * - No stored secret in the input: the editor would show it in Slack, and the masked text sent
 *   back would replace the secret (the decision page leaves its editor off for the same reason).
 */
import type { Db } from "@/db/client";
import type { ApprovalRow } from "@/db/queries/approvals";
import { getRun } from "@/db/queries/runs";
import { MODIFICATION_SUPPORT } from "@/lib/core/dialects/modification-support";

export type InputEditCheck = { editable: true; json: string } | { editable: false; why: string };

export async function inputEditCheck(db: Db, approval: ApprovalRow, mask: (text: string) => string): Promise<InputEditCheck> {
  if (!approval.toolName) return { editable: false, why: "This approval is not about a tool call: there is no input to edit" };
  const run = await getRun(db, { projectId: approval.projectId, id: approval.runId });
  if (!run) return { editable: false, why: "The run of this approval is gone" };
  if (run.externalSessionId) {
    const support = MODIFICATION_SUPPORT[run.source];
    if (!support?.input) return { editable: false, why: `${support?.agent ?? run.source} cannot run a tool call with a rewritten input` };
  }
  const json = JSON.stringify(approval.toolInput ?? {}, null, 2);
  if (mask(json) !== json) return { editable: false, why: "The input holds a stored secret, which an editor in Slack would show" };
  return { editable: true, json };
}
