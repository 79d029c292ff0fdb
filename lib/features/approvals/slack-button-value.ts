/**
 * The value of an Approve, Deny or "Edit & approve" button on an interactive Slack approval message.
 *
 * Everyone in the channel can read a button's value (Slack hands it to every client; a copied or
 * forwarded message carries it), so it must decide nothing on its own. It names the approval, its
 * run, a hash of its tool input, the decision and its expiry like a decision link, but it is
 * signed under a key of its own: `/decide/<value>` finds no link there (404, decision-page.ts),
 * and slack-interactions.ts reads it only inside a request Slack signed, deciding as the Slack user
 * mapped to a Hookplane user. Signed rather than a bare approval id: a message another hook posts
 * with the same bot token cannot put our buttons' action ids on another project's approval.
 *
 * The edit button's value is signed under yet another key: it opens the editor and carries an
 * edited input back (slack-edit-modal.ts), which the Approve button's value must not, and an edit
 * value under the Approve action is no button of ours either.
 */
import { getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { mintDecisionToken, readDecisionToken, type DecisionLinkClaims, type TokenReading } from "./decision-links";

/** What the button does: decide as its claims say, or open the editor of an approve. */
export type SlackButtonPurpose = "decide" | "edit";

function buttonKey(purpose: SlackButtonPurpose): Buffer {
  return getSecretBox().derive(purpose === "edit" ? "slack-buttons/edit/v1" : "slack-buttons/v1");
}

export function slackButtonValue(claims: DecisionLinkClaims, purpose: SlackButtonPurpose = "decide", key = buttonKey(purpose)): string {
  return mintDecisionToken(claims, key);
}

/** What a button's value says, once its signature is ours for `purpose`; nothing about the approval itself. */
export function readSlackButtonValue(value: string, purpose: SlackButtonPurpose = "decide", key = buttonKey(purpose)): TokenReading {
  return readDecisionToken(value, key);
}
