/**
 * The page a decision link opens (`/decide/<token>`), for someone who may not have a Hookplane
 * account or be signed in. GET only shows: the agent, the run (a link into the dashboard), the
 * tool and its input with every secret value masked, and one button. The button POSTs the form
 * back with a confirmation token bound to the link, and only that decides (decidedVia "link",
 * decidedBy the recipient the link was sent to). The web edge lets the POST through only from
 * this origin (server.ts refuses form posts without a same-origin Origin), and no cookie is read:
 * the link is the permission, so there is nothing for another site to ride on.
 *
 * Every outcome is a readable page with its status, never a 500: 400 for what is not a link,
 * 404 for a link that was changed or names nothing, 403 for a recipient outside the approvers,
 * 409 once decided (by anyone, through anything), 410 once expired.
 */
import type { Db } from "@/db/client";
import { getApprovalInAnyProject } from "@/db/queries/approvals";
import { getMemberRole } from "@/db/queries/projects";
import { getUserByEmail } from "@/db/queries/users";
import { AppError } from "@/lib/platform/api/app-error";
import { unsafeInputIssues } from "@/lib/core/safe-input";
import { decideApproval, type Decider } from "./approval-decisions";
import { decisionSchema } from "./schema";
import { roleAtLeast } from "@/lib/platform/auth/roles";
import { logger } from "@/lib/platform/logger";
import { secretMasker } from "./approval-notices";
import { decisionRefusal, describeApprovers, hasApprovers, type DeciderIdentity } from "./approvers";
import { confirmationMatches, confirmationToken, readDecisionToken, toolInputHash, type DecisionLinkClaims } from "./decision-links";

type Approval = NonNullable<Awaited<ReturnType<typeof getApprovalInAnyProject>>>;

export type LinkState =
  | { kind: "open"; claims: DecisionLinkClaims; approval: Approval; identity: DeciderIdentity }
  | { kind: "refused"; status: number; title: string; message: string; approval?: Approval; claims?: DecisionLinkClaims };

const refused = (status: number, title: string, message: string, extra: Partial<Extract<LinkState, { kind: "refused" }>> = {}): LinkState => ({
  kind: "refused",
  status,
  title,
  message,
  ...extra,
});

/**
 * Who a link was sent to, as the approvers see them: a person (by their account, if any, with
 * their role in the approval's project: none when not a member, admin for an instance admin) or a
 * channel.
 */
async function recipientIdentity(db: Db, recipient: string, projectId: string): Promise<DeciderIdentity> {
  if (!recipient.startsWith("user:")) return {};
  const email = recipient.slice("user:".length).toLowerCase();
  const user = await getUserByEmail(db, { email });
  if (!user) return { email };
  if (user.disabled) return {};
  const role = user.instanceAdmin ? "admin" : await getMemberRole(db, { projectId, userId: user.id });
  return { email, ...(role && { role }) };
}

export function settledMessage(approval: Approval): string {
  const when = approval.decidedAt ? ` on ${approval.decidedAt.toISOString().replace("T", " ").slice(0, 19)} UTC` : "";
  switch (approval.status) {
    case "approved":
    case "denied":
      return `It was ${approval.status} by ${approval.decidedBy ?? "someone"} via ${approval.decidedVia ?? "the dashboard"}${when}.`;
    case "timed_out":
      return `Nobody decided in time${when}; its timeout policy answered.`;
    case "abandoned":
      return `Nobody waits for it any more${when}: ${approval.reason ?? "its run ended"}.`;
    default:
      return "";
  }
}

/**
 * The approval a verified token names, if the token still may decide it: 404 when it names
 * nothing (or another run or tool input), 409 once settled, 410 once expired. Shared by the page
 * and the Slack buttons (whose values carry the same claims under another key).
 */
export async function approvalForClaims(db: Db, claims: DecisionLinkClaims, now = Date.now()): Promise<{ approval: Approval } | { refusal: LinkState }> {
  // The link is bound to its approval (signed id, run and input), whichever project holds it.
  const approval = await getApprovalInAnyProject(db, { id: claims.approvalId });
  if (!approval || approval.runId !== claims.runId || toolInputHash(approval.toolInput) !== claims.inputHash) {
    return { refusal: refused(404, "Unknown decision link", "The approval this link names does not exist (any more) on this server.") };
  }
  if (approval.status !== "pending") return { refusal: refused(409, "Already decided", settledMessage(approval), { approval, claims }) };
  if (now >= claims.expiresAt * 1000) {
    return {
      refusal: refused(410, "This link has expired", "Decision links stop working when their approval times out (and at most a week after it was asked). Decide in the dashboard.", {
        approval,
        claims,
      }),
    };
  }
  return { approval };
}

/** Where a link stands now: open for a decision, or why not (with the status the page answers). */
export async function resolveDecisionLink(db: Db, token: string, now = Date.now()): Promise<LinkState> {
  const reading = readDecisionToken(token);
  if (!reading.ok) {
    return reading.problem === "malformed"
      ? refused(400, "This is not a decision link", "The address is incomplete or damaged. Open the link from the message again, or decide in the dashboard.")
      : refused(404, "Unknown decision link", "This link was not made by this Hookplane server, or it was changed on the way. Open the link from the message again, or decide in the dashboard.");
  }
  const { claims } = reading;
  const found = await approvalForClaims(db, claims, now);
  if ("refusal" in found) return found.refusal;
  const { approval } = found;
  const identity = await recipientIdentity(db, claims.recipient, approval.projectId);
  const refusal = decisionRefusal(approval.approvers, identity, "link");
  if (refusal) {
    return refused(403, "Not yours to decide", `${refusal}; this link was sent to ${claims.recipient}.`, { approval, claims });
  }
  return { kind: "open", claims, approval, identity };
}

/** The form's POST: decides once, as the link's recipient. Any refusal is a page, like GET's. */
export async function confirmDecisionLink(db: Db, token: string, form: { confirm?: string; reason?: string; input?: string }): Promise<{ state: LinkState; decided?: Approval["status"] }> {
  const state = await resolveDecisionLink(db, token);
  if (state.kind !== "open") return { state };
  if (!form.confirm || !confirmationMatches(token, form.confirm)) {
    return { state: refused(400, "Confirm on the page", "Open the link and press the button on its page to decide.", { approval: state.approval, claims: state.claims }) };
  }
  if (form.reason && unsafeInputIssues(form.reason).length > 0) {
    return { state: refused(400, "Not decided", "The reason contains characters that cannot be stored; write it without them.", { approval: state.approval, claims: state.claims }) };
  }
  // An approve link's recipient who may edit (an operator or admin) sends the input back, edited or not.
  let input: Record<string, unknown> | undefined;
  if (form.input !== undefined && form.input.trim() !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(form.input);
    } catch (error) {
      return { state: refused(400, "Not decided", `input: not JSON (${(error as Error).message}); nothing was decided.`, { approval: state.approval, claims: state.claims }) };
    }
    const checked = decisionSchema.safeParse({ decision: state.claims.decision, input: parsed });
    if (!checked.success) {
      const issue = checked.error.issues[0];
      return { state: refused(400, "Not decided", `${issue.path.join(".")}: ${issue.message}; nothing was decided.`, { approval: state.approval, claims: state.claims }) };
    }
    input = checked.data.input;
  }
  const decider: Decider = {
    label: state.claims.recipient,
    via: "link",
    identity: state.identity,
    withoutApprovers: "link",
    note: { link: { recipient: state.claims.recipient, decision: state.claims.decision } },
  };
  try {
    const reason = form.reason?.trim().slice(0, 2000) || undefined;
    const settled = await decideApproval(db, decider, state.approval.id, { decision: state.claims.decision, ...(reason && { reason }), ...(input && { input }) });
    return { state, decided: settled.status };
  } catch (error) {
    if (error instanceof AppError && error.status < 500) {
      const now = await getApprovalInAnyProject(db, { id: state.approval.id });
      const title = error.status === 409 ? "Already decided" : error.status === 403 ? "Not yours to decide" : "Not decided";
      return { state: refused(error.status, title, now && now.status !== "pending" ? settledMessage(now) : error.message, { approval: now ?? state.approval, claims: state.claims }) };
    }
    throw error;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const STYLE = `
  :root { color-scheme: light dark; font-family: ui-sans-serif, system-ui, sans-serif; }
  body { margin: 0; background: #f4f4f5; color: #18181b; }
  main { max-width: 40rem; margin: 3rem auto; padding: 1.5rem; background: #fff; border-radius: .75rem; border: 1px solid #e4e4e7; }
  h1 { font-size: 1.25rem; margin: 0 0 .75rem; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; font-size: .9rem; }
  dt { color: #71717a; } dd { margin: 0; }
  pre { background: #f4f4f5; padding: .75rem; border-radius: .5rem; overflow: auto; max-height: 20rem; font-size: .8rem; }
  input[type=text] { width: 100%; box-sizing: border-box; padding: .5rem; border: 1px solid #d4d4d8; border-radius: .375rem; margin: .25rem 0 1rem; }
  button { font: inherit; padding: .55rem 1.1rem; border: 0; border-radius: .375rem; color: #fff; cursor: pointer; }
  .approve { background: #15803d; } .deny { background: #b91c1c; }
  .note { color: #52525b; font-size: .85rem; } a { color: #4f46e5; }
  @media (prefers-color-scheme: dark) {
    body { background: #09090b; color: #f4f4f5; } main { background: #18181b; border-color: #27272a; }
    pre { background: #27272a; } dt, .note { color: #a1a1aa; } input[type=text] { background: #27272a; color: inherit; border-color: #3f3f46; }
  }`;

async function describeApproval(db: Db, approval: Approval, claims?: DecisionLinkClaims): Promise<string> {
  const mask = await secretMasker(db);
  const input = approval.toolInput === null || approval.toolInput === undefined ? "" : mask(JSON.stringify(approval.toolInput, null, 2));
  const rows: [string, string][] = [
    ["Agent", escapeHtml(approval.agentName)],
    ["Run", `<a href="/runs/${encodeURIComponent(approval.runId)}" data-testid="run-link">${escapeHtml(approval.runId)}</a>`],
    ["Tool", `<code data-testid="tool-name">${escapeHtml(approval.toolName ?? "(none)")}</code>`],
    ["Asked by hook", escapeHtml(approval.hookKey)],
    ...(approval.message ? ([["Message", escapeHtml(mask(approval.message))]] as [string, string][]) : []),
    ...(hasApprovers(approval.approvers) ? ([["Who may decide", escapeHtml(describeApprovers(approval.approvers))]] as [string, string][]) : []),
    ...(claims ? ([["Link sent to", escapeHtml(claims.recipient)]] as [string, string][]) : []),
    ...(approval.status === "pending" && approval.expiresAt ? ([["Times out", `${escapeHtml(approval.expiresAt.toISOString().replace("T", " ").slice(0, 19))} UTC`]] as [string, string][]) : []),
  ];
  return `<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("")}</dl>${input ? `<pre data-testid="tool-input">${escapeHtml(input)}</pre>` : ""}`;
}

function page(status: number, title: string, body: string): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)} · Hookplane</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
  return new Response(html, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
}

/**
 * The edit box of an approve link: for a recipient who may rewrite the call (an operator or
 * admin), on a tool call whose input holds no stored secret (the page masks those, and a masked
 * value sent back would replace the secret).
 */
async function inputEditor(db: Db, approval: Approval, identity: DeciderIdentity): Promise<string> {
  if (!approval.toolName || !identity.role || !roleAtLeast(identity.role, "operator")) return "";
  const json = JSON.stringify(approval.toolInput ?? {}, null, 2);
  if ((await secretMasker(db))(json) !== json) return "";
  return `<details><summary class="note">Edit the input before approving</summary>
    <label for="input" class="note">The call runs with this JSON object instead of what was asked</label>
    <textarea id="input" name="input" rows="8" data-testid="decision-input" style="width:100%;box-sizing:border-box;font-family:ui-monospace,monospace">${escapeHtml(json)}</textarea>
  </details>`;
}

/** The page for a state: the confirmation form while open, otherwise why not. */
export async function renderLinkState(db: Db, token: string, state: LinkState): Promise<Response> {
  if (state.kind === "refused") {
    const details = state.approval ? await describeApproval(db, state.approval, state.claims) : "";
    return page(
      state.status,
      state.title,
      `<h1 data-testid="decision-title">${escapeHtml(state.title)}</h1><p data-testid="decision-message">${escapeHtml(state.message)}</p>${details}`,
    );
  }
  const approve = state.claims.decision === "approve";
  const verb = approve ? "Approve" : "Deny";
  const editor = approve ? await inputEditor(db, state.approval, state.identity) : "";
  const form = `<form method="post" action="/decide/${encodeURIComponent(token)}">
    <input type="hidden" name="confirm" value="${escapeHtml(confirmationToken(token))}">${editor}
    <label for="reason" class="note">Reason (optional)</label>
    <input type="text" id="reason" name="reason" maxlength="2000" autocomplete="off">
    <button type="submit" class="${approve ? "approve" : "deny"}" data-testid="confirm-decision">${verb}</button>
  </form>`;
  return page(
    200,
    `${verb} this tool call?`,
    `<h1 data-testid="decision-title">${verb} this tool call?</h1>${await describeApproval(db, state.approval, state.claims)}
     <p class="note">Nothing is decided until you press ${verb}. You decide as ${escapeHtml(state.claims.recipient)}.</p>${form}`,
  );
}

export function renderDecided(status: string, approval: Approval): Response {
  const done = status === "approved" ? "Approved" : "Denied";
  const next = status === "approved" ? "The agent goes on with the call." : "The agent is told it was denied.";
  return page(
    200,
    done,
    `<h1 data-testid="decision-title">${done}</h1><p data-testid="decision-message">${escapeHtml(next)} <a href="/runs/${encodeURIComponent(approval.runId)}">Open the run</a></p>`,
  );
}

/** For the route: anything unexpected is logged and answered with a page, never a bare 500. */
export function failurePage(error: unknown): Response {
  logger.error({ err: error }, "decision link failed");
  return page(503, "Try again", "<h1>Try again</h1><p>Hookplane could not answer just now; nothing was decided.</p>");
}
