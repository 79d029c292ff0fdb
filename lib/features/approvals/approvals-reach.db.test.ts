/**
 * Approvals outside the dashboard (issue 11, items 1, 2, 4), against local servers that speak
 * Slack's and Discord's APIs: a parked run's approval posts a Slack message with buttons, a
 * signed callback decides it, the run resumes and the message is changed to say so. Forged,
 * stale and replayed callbacks decide nothing; decision links work once (409 after), refuse when
 * expired (410), changed (404/400) or sent outside the approvers (403); the API refuses people
 * outside the approvers; "approve and always allow" writes a shadow allow rule that the ledger
 * then shows as "would allow". Notices never carry a secret value of the store.
 */
import { setEnv } from "@/test/config-env";
import { existsSync } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getApprovalInAnyProject, listApprovals } from "@/db/queries/approvals";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { listApprovalNotices } from "@/db/queries/approval-notices";
import { listAudit } from "@/db/queries/audit";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { findHookByKey, listHooks, listHookVersions } from "@/db/queries/hooks";
import { getUserByEmail } from "@/db/queries/users";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";
import * as slackRoute from "@/app/api/integrations/slack/interactions/route";
import * as decideRoute from "@/app/decide/[token]/route";
import { callRoute } from "@/test/api-client";
import { setUserSlackIdAudited } from "@/lib/platform/auth/user-service";
import { json, startServer, type LocalServer, type RecordedRequest } from "@/lib/core/hooks/testing/fakes";
import { putSecretAudited } from "@/lib/features/secrets/secret-store";
import { forgetSecretBox, getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { patchHookAudited } from "@/lib/features/hooks/hook-service";
import { startRun } from "../runs/run-service";
import { addAgent, createRunHarness, operator, personIn, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";
import { addPerson, addToken } from "@/test/people";
import { confirmationToken, linkExpiry, mintDecisionToken, toolInputHash } from "./decision-links";
import { slackSignature } from "./slack-interactions";

const PUBLIC = "https://hookplane.example.com";
const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const DEPLOY_KEY = "dk-live-7f3a9c2e51b8";
const SLACK_TS = "1700000000.000100";
const admin = personIn("admin", undefined, "admin@example.com");

let h: RunHarness;
let slack: LocalServer;
let discord: LocalServer;
let hooks: LocalServer;
let aliceToken: string;
let carolToken: string;
let restoreEnv: () => void;
const env: Record<string, string> = {};

beforeAll(async () => {
  slack = await startServer((req, res) => {
    if (req.url === "/chat.postMessage") return json(res, 200, { ok: true, channel: "C0OPS", ts: SLACK_TS, message: {} });
    if (req.url === "/chat.update") return json(res, 200, { ok: true, channel: "C0OPS", ts: SLACK_TS });
    return json(res, 200, { ok: true });
  });
  discord = await startServer((req, res) => json(res, 200, { id: "998877", channel_id: "4242" }));
  hooks = await startServer((_req, res) => json(res, 200, {}));
  Object.assign(env, {
    HOOKPLANE_PUBLIC_URL: PUBLIC,
    HOOKPLANE_SLACK_SIGNING_SECRET: SIGNING_SECRET,
    HOOKPLANE_SLACK_BASE_URL: slack.url,
    HOOKPLANE_DISCORD_BASE_URL: discord.url,
    HOOKPLANE_ALLOW_PRIVATE_HOSTS: "127.0.0.1",
    HOOKPLANE_SECRET_KEY: randomBytes(32).toString("base64"),
  });
  restoreEnv = setEnv(env);
  forgetSecretBox();
  h = await createRunHarness({ approvalHoldMs: 150 });
  const db = h.t.db;
  for (const [email, role] of [["alice@example.com", "operator"], ["bob@example.com", "viewer"], ["carol@example.com", "admin"]] as const) {
    await addPerson(db, { email, passwordHash: "unused", role });
  }
  const alice = (await getUserByEmail(db, { email: "alice@example.com" }))!;
  const bob = (await getUserByEmail(db, { email: "bob@example.com" }))!;
  const carol = (await getUserByEmail(db, { email: "carol@example.com" }))!;
  await setUserSlackIdAudited(db, admin, { id: alice.id, slackUserId: "UALICE01" });
  await setUserSlackIdAudited(db, admin, { id: bob.id, slackUserId: "UBOB0001" });
  await setUserSlackIdAudited(db, admin, { id: carol.id, slackUserId: "UCAROL01" });
  aliceToken = (await addToken(db, { name: "alice", role: "operator", userId: alice.id })).token;
  carolToken = (await addToken(db, { name: "carol", role: "admin", userId: carol.id })).token;
  await putSecretAudited(db, getSecretBox(), admin, { name: "SLACK_BOT_TOKEN", value: "xoxb-test-slack-1", hosts: ["127.0.0.1"] });
  await putSecretAudited(db, getSecretBox(), admin, { name: "DISCORD_BOT_TOKEN", value: "discord-test-bot-2", hosts: ["127.0.0.1"] });
  // In no hook at all: still masked wherever a tool input carries it.
  await putSecretAudited(db, getSecretBox(), admin, { name: "DEPLOY_KEY", value: DEPLOY_KEY, hosts: [] });
});

afterAll(async () => {
  await h.close();
  await Promise.all([slack.close(), discord.close(), hooks.close()]);
  restoreEnv();
  forgetSecretBox();
});

const writeTurn = (file: string) => ({
  text: "writing",
  toolCalls: [{ name: "write_file", input: { path: file, content: `key=${DEPLOY_KEY}` } }],
  usage: { inputTokens: 10, outputTokens: 2 },
});

/** An agent whose write is asked about, with Slack, Discord and webhook notices of the question. */
async function gatedAgent(name: string, file: string, approve: Record<string, unknown> = {}, turns = 1) {
  const script = [...Array.from({ length: turns }, () => writeTurn(file)), { text: "all done" }];
  return addAgent(h.t, { name, tools: ["write_file"], script }, [
    { id: "ask", event: "tool.pre", matcher: "write_file", action: { type: "approve", timeoutMs: 600_000, onTimeout: "deny", ...approve } },
    { id: "tell-slack", event: "approval.requested", action: { type: "slack", channel: "C0OPS", tokenSecret: "SLACK_BOT_TOKEN" } },
    { id: "tell-discord", event: "approval.requested", action: { type: "discord", channel: "4242", tokenSecret: "DISCORD_BOT_TOKEN" } },
    { id: "tell-hook", event: "approval.requested", action: { type: "webhook", url: `${hooks.url}/approvals` } },
  ]);
}

async function parkedApproval(runId: string) {
  await waitForRun(h.t, runId, (r) => r.status === "waiting_approval" && r.leaseOwner === null);
  const mine = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 100 })).filter((a) => a.runId === runId);
  expect(mine).toHaveLength(1);
  return mine[0];
}

async function until<T>(read: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const bodyOf = (req: RecordedRequest) => JSON.parse(req.body);
/** The Slack message posted for a tool input path (each test writes its own file). */
const postedFor = (file: string) => until(() => slack.requests.find((r) => r.url === "/chat.postMessage" && r.body.includes(file)), `the Slack message about ${file}`);
const webhookFor = (file: string) => until(() => hooks.requests.find((r) => r.body.includes(file)), `the webhook about ${file}`);
const discordFor = (file: string) => until(() => discord.requests.find((r) => r.method === "POST" && r.body.includes(file)), `the Discord message about ${file}`);

function buttons(message: ReturnType<typeof bodyOf>): Record<string, string> {
  const actions = (message.blocks as { type: string; elements?: { action_id: string; value: string }[] }[]).find((b) => b.type === "actions")!;
  return Object.fromEntries(actions.elements!.map((e) => [e.action_id, e.value]));
}

let clicks = 0;
/** What Slack sends when `userId` clicks the button with `value`, signed (or not) like Slack signs it; each click is its own. */
function slackClick(
  value: string,
  actionId: string,
  userId: string,
  options: { timestamp?: number; secret?: string; signature?: string } = {},
): { body: string; headers: Record<string, string> } {
  const payload = {
    type: "block_actions",
    user: { id: userId, username: userId.toLowerCase(), team_id: "T0TEAM" },
    channel: { id: "C0OPS", name: "ops" },
    message: { ts: SLACK_TS },
    response_url: `${slack.url}/respond/${userId}`,
    actions: [{ action_id: actionId, block_id: "hookplane_decision", value, type: "button", action_ts: `1700000001.${String(++clicks).padStart(4, "0")}` }],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  return {
    body,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": timestamp,
      "x-slack-signature": options.signature ?? slackSignature(options.secret ?? SIGNING_SECRET, timestamp, body),
    },
  };
}

async function sendToSlackRoute(click: { body: string; headers: Record<string, string> }) {
  const response = await slackRoute.POST(new Request("http://localhost/api/integrations/slack/interactions", { method: "POST", headers: click.headers, body: click.body }));
  return { status: response.status, text: await response.text() };
}

const ephemeralTo = (userId: string) => slack.requests.filter((r) => r.url === `/respond/${userId}`).map((r) => bodyOf(r));

async function openLink(url: string) {
  const token = url.slice(`${PUBLIC}/decide/`.length);
  const response = await decideRoute.GET(new Request(url), { params: Promise.resolve({ token }) });
  return { status: response.status, html: await response.text(), token };
}

async function confirmLink(token: string, confirm?: string) {
  const body = new URLSearchParams(confirm === undefined ? {} : { confirm });
  const response = await decideRoute.POST(
    new Request(`${PUBLIC}/decide/${token}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body }),
    { params: Promise.resolve({ token }) },
  );
  return { status: response.status, html: await response.text() };
}

const confirmFrom = (html: string) => /name="confirm" value="([^"]+)"/.exec(html)![1];

test("Slack: message with buttons → signed callback approves → the run resumes → the message says who approved", async () => {
  const agent = await gatedAgent("reach-slack", "slack.txt");
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  const pending = await parkedApproval(run.id);

  const posted = await postedFor("slack.txt");
  expect(posted.headers.authorization).toBe("Bearer xoxb-test-slack-1");
  const message = bodyOf(posted);
  expect(message.text).toBe("Approval needed: agent reach-slack wants to run write_file `slack.txt`");
  // No "Edit & approve": the input holds a stored secret, which an editor in Slack would show.
  expect(Object.keys(buttons(message))).toEqual(["hookplane_approve", "hookplane_deny"]);
  expect(JSON.stringify(message.blocks)).toContain(`<${PUBLIC}/approvals#approval-${pending.id}|Open the approval>`);
  expect(JSON.stringify(message.blocks)).toContain(`<${PUBLIC}/runs/${run.id}|Open the run>`);
  // The tool input carries a secret of the store: no notice says it.
  for (const server of [slack, discord, hooks]) for (const req of server.requests) expect(req.body).not.toContain(DEPLOY_KEY);
  const discordMessage = bodyOf(await discordFor("slack.txt"));
  expect(discordMessage.content.split("\n")[0]).toBe("Approval needed: agent reach-slack wants to run write_file `slack.txt`");
  expect(discordMessage.components[0].components.map((c: { style: number; label: string }) => [c.style, c.label])).toEqual([[5, "Approve"], [5, "Deny"]]);
  const hookBody = bodyOf(await webhookFor("slack.txt"));
  expect(hookBody.notice).toMatchObject({
    summary: "Approval needed: agent reach-slack wants to run write_file `slack.txt`",
    runUrl: `${PUBLIC}/runs/${run.id}`,
    approvalUrl: `${PUBLIC}/approvals#approval-${pending.id}`,
    decisionLinks: [{ recipient: "webhook:127.0.0.1", label: "127.0.0.1" }],
  });
  expect(hookBody.toolInput.content).toBe("key=[REDACTED]");
  const notices = await listApprovalNotices(h.t.db, { approvalId: pending.id });
  expect(notices.map((n) => [n.service, n.channel, n.messageId, n.tokenSecret, n.hookKey, n.settledAt]).sort()).toEqual([
    ["discord", "4242", "998877", "DISCORD_BOT_TOKEN", "tell-discord", null],
    ["slack", "C0OPS", SLACK_TS, "SLACK_BOT_TOKEN", "tell-slack", null],
  ]);

  const clicked = await sendToSlackRoute(slackClick(buttons(message).hookplane_approve, "hookplane_approve", "UALICE01"));
  expect(clicked.status).toBe(200);
  const done = await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(done.outcome).toBe("completed");
  expect(existsSync(path.join(h.workspacesDir, run.id, "slack.txt"))).toBe(true);

  const approval = (await getApprovalInAnyProject(h.t.db, { id: pending.id }))!;
  expect(approval).toMatchObject({ status: "approved", decidedBy: "alice@example.com", decidedVia: "slack", reason: null });
  const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
  const ask = ledger.find((r) => r.hookKey === "ask" && r.event === "tool.pre")!;
  expect(ask).toMatchObject({ matched: true, verdict: "allow", reason: "approved by alice@example.com via slack" });
  expect(ask.approval).toMatchObject({ approvalId: pending.id, status: "approved", decidedBy: "alice@example.com", decidedVia: "slack" });
  const settled = (await runEvents(h.t, run.id)).filter((e) => e.type === "approval.settled");
  expect(settled.map((e) => e.data)).toMatchObject([{ approvalId: pending.id, status: "approved", decision: "approve", decidedBy: "alice@example.com", decidedVia: "slack" }]);
  const audit = await listAudit(h.t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "approval", entityId: pending.id, limit: 10 });
  expect(audit.map((a) => [a.actor, a.action])).toEqual([["alice@example.com", "approval.approve"]]);
  expect(audit[0].after).toMatchObject({ status: "approved", decidedVia: "slack", slack: { userId: "UALICE01", channel: "C0OPS", messageTs: SLACK_TS } });

  const update = bodyOf(await until(() => slack.requests.find((r) => r.url === "/chat.update"), "chat.update"));
  const line = "Approved by alice@example.com via slack: agent reach-slack may run write_file `slack.txt`";
  expect(update).toEqual({
    channel: "C0OPS",
    ts: SLACK_TS,
    text: line,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: line } },
      { type: "context", elements: [{ type: "mrkdwn", text: `<${PUBLIC}/approvals#approval-${pending.id}|Open the approval> · <${PUBLIC}/runs/${run.id}|Open the run>` }] },
    ],
    attachments: [],
  });
  const patch = await until(() => discord.requests.find((r) => r.method === "PATCH"), "the Discord update");
  expect(patch.url).toBe("/channels/4242/messages/998877");
  expect(patch.headers.authorization).toBe("Bot discord-test-bot-2");
  expect(bodyOf(patch)).toEqual({ content: `${line}\nApproval: <${PUBLIC}/approvals#approval-${pending.id}>\nRun: <${PUBLIC}/runs/${run.id}>`, components: [] });
  // Each message changed once, and marked so.
  expect(slack.requests.filter((r) => r.url === "/chat.update")).toHaveLength(1);
  expect((await listApprovalNotices(h.t.db, { approvalId: pending.id })).every((n) => n.settledAt !== null)).toBe(true);
});

test("Slack: forged, stale and replayed callbacks, unlinked and outside clickers decide nothing", async () => {
  const agent = await gatedAgent("reach-refusals", "refusals.txt", { approvers: { users: ["carol"] } });
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  const pending = await parkedApproval(run.id);
  const message = bodyOf(await postedFor("refusals.txt"));
  // The approvers are mentioned by their Slack member id.
  expect(JSON.stringify(message.blocks)).toContain("Only <@UCAROL01> may decide.");
  const approve = buttons(message).hookplane_approve;

  expect(await sendToSlackRoute(slackClick(approve, "hookplane_approve", "UCAROL01", { secret: "not-the-secret" }))).toMatchObject({ status: 401 });
  expect(await sendToSlackRoute(slackClick(approve, "hookplane_approve", "UCAROL01", { signature: "v0=" + "0".repeat(64) }))).toMatchObject({ status: 401 });
  expect(await sendToSlackRoute(slackClick(approve, "hookplane_approve", "UCAROL01", { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 }))).toMatchObject({ status: 401 });
  const noHeaders = slackClick(approve, "hookplane_approve", "UCAROL01");
  expect(await sendToSlackRoute({ body: noHeaders.body, headers: { "content-type": noHeaders.headers["content-type"] } })).toMatchObject({ status: 401 });

  // Alice is an operator, but not an approver here; Bob is a viewer; U0NOBODY is nobody's.
  expect(await sendToSlackRoute(slackClick(approve, "hookplane_approve", "UALICE01"))).toMatchObject({ status: 200 });
  expect(await sendToSlackRoute(slackClick(approve, "hookplane_approve", "UBOB0001"))).toMatchObject({ status: 200 });
  const stranger = slackClick(approve, "hookplane_approve", "U0NOBODY");
  expect(await sendToSlackRoute(stranger)).toMatchObject({ status: 200 });
  // The very same signed request again, inside the window: a replay.
  expect(await sendToSlackRoute(stranger)).toMatchObject({ status: 409 });
  // A deny button's token under the approve action: not ours.
  expect(await sendToSlackRoute(slackClick(buttons(message).hookplane_deny, "hookplane_approve", "UCAROL01"))).toMatchObject({ status: 200 });

  await until(() => (ephemeralTo("U0NOBODY").length ? true : undefined), "the stranger's ephemeral message");
  expect(ephemeralTo("UALICE01")).toEqual([{ response_type: "ephemeral", replace_original: false, text: "Only carol may decide this approval. Nothing was decided." }]);
  expect(ephemeralTo("UBOB0001")[0].text).toBe("Only carol may decide this approval. Nothing was decided.");
  expect(ephemeralTo("U0NOBODY")[0].text).toMatch(/^Your Slack account \(U0NOBODY\) is not linked to a Hookplane user, so nothing was decided/);
  await until(() => (ephemeralTo("UCAROL01").length ? true : undefined), "carol's ephemeral message");
  expect(ephemeralTo("UCAROL01")[0].text).toBe("This button is not one Hookplane made; nothing was decided.");

  expect((await getApprovalInAnyProject(h.t.db, { id: pending.id }))!.status).toBe("pending");
  expect(await listAudit(h.t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "approval", entityId: pending.id, limit: 10 })).toEqual([]);

  // Carol may.
  expect(await sendToSlackRoute(slackClick(approve, "hookplane_approve", "UCAROL01"))).toMatchObject({ status: 200 });
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(await getApprovalInAnyProject(h.t.db, { id: pending.id })).toMatchObject({ status: "approved", decidedBy: "carol@example.com", decidedVia: "slack" });
  // After the decision, a click answers "already decided" to the clicker alone.
  expect(await sendToSlackRoute(slackClick(approve, "hookplane_approve", "UCAROL01"))).toMatchObject({ status: 200 });
  await until(() => (ephemeralTo("UCAROL01").length > 1 ? true : undefined), "carol's second ephemeral message");
  expect(ephemeralTo("UCAROL01")[1].text).toMatch(/^Already decided\. It was approved by carol@example.com via slack/);
});

test("a Slack button's value is no decision link: copied to /decide it opens and decides nothing; only a click Slack signed decides (issue 30)", async () => {
  const agent = await gatedAgent("reach-copied", "copied.txt");
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  const pending = await parkedApproval(run.id);
  const message = bodyOf(await postedFor("copied.txt"));
  const { hookplane_approve: approve, hookplane_deny: deny } = buttons(message);
  // Nothing in the channel's message opens a decision: the buttons carry values, the links lead to the dashboard.
  expect(JSON.stringify(message)).not.toContain("/decide/");

  // Anyone in the channel can read a value and try it as a link, with or without a confirmation.
  for (const value of [approve, deny]) {
    expect((await openLink(`${PUBLIC}/decide/${value}`)).status).toBe(404);
    expect((await confirmLink(value)).status).toBe(404);
    expect((await confirmLink(value, confirmationToken(value))).status).toBe(404);
  }
  // The other way round: a decision link's token as a button's value is not a button of ours.
  const claims = { approvalId: pending.id, runId: run.id, inputHash: toolInputHash(pending.toolInput), expiresAt: linkExpiry(pending), recipient: "slack:C0OPS" };
  expect(await sendToSlackRoute(slackClick(mintDecisionToken({ ...claims, decision: "approve" }), "hookplane_approve", "UALICE01"))).toMatchObject({ status: 200 });
  await until(() => (ephemeralTo("UALICE01").some((m) => m.text.includes("not one Hookplane made")) ? true : undefined), "alice's ephemeral message");
  // Unsigned or forged clicks with the real value are refused as before.
  expect(await sendToSlackRoute(slackClick(approve, "hookplane_approve", "UALICE01", { secret: "not-the-secret" }))).toMatchObject({ status: 401 });
  const unsigned = slackClick(approve, "hookplane_approve", "UALICE01");
  expect(await sendToSlackRoute({ body: unsigned.body, headers: { "content-type": unsigned.headers["content-type"] } })).toMatchObject({ status: 401 });
  expect((await getApprovalInAnyProject(h.t.db, { id: pending.id }))!.status).toBe("pending");
  expect(await listAudit(h.t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "approval", entityId: pending.id, limit: 10 })).toEqual([]);

  // A click Slack signed, by a linked operator, decides.
  expect(await sendToSlackRoute(slackClick(deny, "hookplane_deny", "UALICE01"))).toMatchObject({ status: 200 });
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(await getApprovalInAnyProject(h.t.db, { id: pending.id })).toMatchObject({ status: "denied", decidedBy: "alice@example.com", decidedVia: "slack" });
});

test("a decision link: the page shows and decides nothing; confirming decides once as the recipient; reopened → 409", async () => {
  const agent = await gatedAgent("reach-link", "link.txt");
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  const pending = await parkedApproval(run.id);
  const links = bodyOf(await webhookFor("link.txt")).notice.decisionLinks as { approve: string; deny: string }[];
  expect(links).toHaveLength(1);

  const opened = await openLink(links[0].approve);
  expect(opened.status).toBe(200);
  expect(opened.html).toContain("Approve this tool call?");
  expect(opened.html).toContain(`href="/runs/${run.id}"`);
  expect(opened.html).toContain("write_file");
  expect(opened.html).toContain("key=[REDACTED]");
  expect(opened.html).not.toContain(DEPLOY_KEY);
  // Opening twice still decides nothing.
  expect((await openLink(links[0].approve)).status).toBe(200);
  expect((await getApprovalInAnyProject(h.t.db, { id: pending.id }))!.status).toBe("pending");

  // A POST without the page's confirmation token decides nothing.
  expect((await confirmLink(opened.token)).status).toBe(400);
  expect((await confirmLink(opened.token, "bm90LXRoZS1jb25maXJtYXRpb24")).status).toBe(400);
  expect((await getApprovalInAnyProject(h.t.db, { id: pending.id }))!.status).toBe("pending");

  const confirmed = await confirmLink(opened.token, confirmFrom(opened.html));
  expect(confirmed.status).toBe(200);
  expect(confirmed.html).toContain("Approved");
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(await getApprovalInAnyProject(h.t.db, { id: pending.id })).toMatchObject({ status: "approved", decidedBy: "webhook:127.0.0.1", decidedVia: "link" });
  const audit = await listAudit(h.t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "approval", entityId: pending.id, limit: 10 });
  expect(audit.map((a) => [a.actor, a.action])).toEqual([["webhook:127.0.0.1", "approval.approve"]]);
  expect(audit[0].after).toMatchObject({ link: { recipient: "webhook:127.0.0.1", decision: "approve" } });

  // Used twice, or its sibling deny link: 409, readable.
  const again = await openLink(links[0].approve);
  expect(again.status).toBe(409);
  expect(again.html).toContain("Already decided");
  expect(again.html).toContain("approved by webhook:127.0.0.1 via link");
  expect((await confirmLink(opened.token, confirmFrom(opened.html))).status).toBe(409);
  expect((await openLink(links[0].deny)).status).toBe(409);
  // The Slack message that asked now says how it ended, decided by link.
  await until(() => slack.requests.find((r) => r.url === "/chat.update" && r.body.includes("link.txt")), "the Slack update");
  expect(bodyOf(slack.requests.find((r) => r.url === "/chat.update" && r.body.includes("link.txt"))!).text).toBe(
    "Approved by webhook:127.0.0.1 via link: agent reach-link may run write_file `link.txt`",
  );
});

test("decision links refuse: tampered (404), not a link (400), expired (410), sent outside the approvers (403)", async () => {
  const agent = await gatedAgent("reach-guarded", "guarded.txt", { approvers: { users: ["carol@example.com"], roles: ["admin"] } });
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  const pending = await parkedApproval(run.id);
  // With approvers, Discord and webhooks get a link per approver, not one for the channel.
  const hookNotice = bodyOf(await webhookFor("guarded.txt")).notice;
  expect(hookNotice.approvers).toEqual(["carol@example.com"]);
  expect(hookNotice.decisionLinks.map((l: { recipient: string }) => l.recipient)).toEqual(["user:carol@example.com"]);
  const discordMessage = bodyOf(await discordFor("guarded.txt"));
  expect(discordMessage.components[0].components.map((c: { label: string }) => c.label)).toEqual(["Approve (carol@example.com)", "Deny (carol@example.com)"]);

  const claims = { approvalId: pending.id, runId: run.id, inputHash: toolInputHash(pending.toolInput), expiresAt: linkExpiry(pending) };
  // The signature's first character: its last carries two bits base64url drops, so changing it may change nothing.
  const tampered = hookNotice.decisionLinks[0].approve.replace(/\.(.)([^.]*)$/, (_: string, c: string, rest: string) => `.${c === "A" ? "B" : "A"}${rest}`);
  expect((await openLink(tampered)).status).toBe(404);
  expect((await openLink(`${PUBLIC}/decide/not-a-link`)).status).toBe(400);
  const otherRun = mintDecisionToken({ ...claims, runId: "00000000-0000-0000-0000-000000000000", decision: "approve", recipient: "user:carol@example.com" });
  expect((await openLink(`${PUBLIC}/decide/${otherRun}`)).status).toBe(404);
  const expired = mintDecisionToken({ ...claims, expiresAt: Math.floor(Date.now() / 1000) - 1, decision: "approve", recipient: "user:carol@example.com" });
  const expiredPage = await openLink(`${PUBLIC}/decide/${expired}`);
  expect(expiredPage.status).toBe(410);
  expect(expiredPage.html).toContain("This link has expired");
  // A link minted for the channel, or for Alice (an operator, but no approver), is not theirs to use.
  for (const recipient of ["discord:4242", "user:alice@example.com", "user:bob@example.com"]) {
    const page = await openLink(`${PUBLIC}/decide/${mintDecisionToken({ ...claims, decision: "approve", recipient })}`);
    expect(page.status).toBe(403);
    expect(page.html).toContain("Only carol@example.com or any admin may decide this approval");
  }
  expect((await getApprovalInAnyProject(h.t.db, { id: pending.id }))!.status).toBe("pending");

  // Carol's own deny link works.
  const carols = await openLink(hookNotice.decisionLinks[0].deny);
  expect(carols.status).toBe(200);
  expect((await confirmLink(carols.token, confirmFrom(carols.html))).status).toBe(200);
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(await getApprovalInAnyProject(h.t.db, { id: pending.id })).toMatchObject({ status: "denied", decidedBy: "user:carol@example.com", decidedVia: "link" });
});

test("API: someone outside the approvers gets 403 and nothing changes; an approver decides", async () => {
  const agent = await gatedAgent("reach-api", "api.txt", { approvers: { users: ["carol"] } });
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  const pending = await parkedApproval(run.id);
  const decide = (token: string) => callRoute(decisionRoute.POST, { method: "POST", token, params: { id: pending.id }, body: { decision: "approve" } });

  const refused = await decide(aliceToken);
  expect(refused.status).toBe(403);
  expect(refused.body.error.message).toBe("Only carol may decide this approval");
  expect(await getApprovalInAnyProject(h.t.db, { id: pending.id })).toMatchObject({ status: "pending", decidedBy: null, decidedVia: null, decidedAt: null });
  expect(await listAudit(h.t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "approval", entityId: pending.id, limit: 10 })).toEqual([]);

  expect((await decide(carolToken)).status).toBe(200);
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(await getApprovalInAnyProject(h.t.db, { id: pending.id })).toMatchObject({ status: "approved", decidedBy: "token:carol", decidedVia: "api" });
});

test("approve and always allow: a shadow allow rule before the asking hook; the same call next is 'would allow' in the ledger", async () => {
  const agent = await gatedAgent("reach-always", "always.txt");
  const first = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  const pending = await parkedApproval(first.id);
  const answer = await callRoute(decisionRoute.POST, { method: "POST", token: aliceToken, params: { id: pending.id }, body: { decision: "approve", alwaysAllow: true } });
  expect(answer.status).toBe(200);
  const scope = `agent:${agent.id}`;
  expect(answer.body.allowRule).toMatchObject({ scope, version: 1 });
  await waitForRun(h.t, first.id, (r) => r.status === "finished");

  const rule = (await findHookByKey(h.t.db, { projectId: DEFAULT_PROJECT_ID, scope, key: answer.body.allowRule.key }))!;
  expect(rule.spec).toMatchObject({
    event: "tool.pre",
    mode: "shadow",
    matcher: "write_file",
    action: { type: "allow", input: { path: "always.txt", content: `key=${DEPLOY_KEY}` } },
  });
  expect((await listHooks(h.t.db, { projectId: DEFAULT_PROJECT_ID, scope, event: "tool.pre" })).map((r) => r.key)).toEqual([rule.key, "ask"]);
  expect((await listHookVersions(h.t.db, { hookId: rule.id })).map((v) => [v.version, v.createdBy])).toEqual([[1, "token:alice"]]);
  const ruleAudit = await listAudit(h.t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "hook", entityId: rule.id, limit: 10 });
  expect(ruleAudit.map((a) => [a.actor, a.action])).toEqual([["token:alice", "hook.create"]]);
  const decisionAudit = await listAudit(h.t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "approval", entityId: pending.id, limit: 10 });
  expect(decisionAudit[0].after).toMatchObject({ status: "approved", allowRule: { id: rule.id, key: rule.key, mode: "shadow" } });

  // The same call again: the rule says what it would do, and the person is still asked.
  const second = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it again" });
  const asked = await parkedApproval(second.id);
  const ledger = await listRunHookInvocations(h.t.db, { runId: second.id });
  expect(ledger.find((r) => r.hookKey === rule.key)).toMatchObject({
    event: "tool.pre",
    matched: true,
    verdict: "allow",
    mode: "shadow",
    ignored: true,
    reason: expect.stringMatching(/^shadow: would allow without asking \(approved by token:alice, who chose to always allow it/),
  });
  expect((await callRoute(decisionRoute.POST, { method: "POST", token: aliceToken, params: { id: asked.id }, body: { decision: "deny" } })).status).toBe(200);
  await waitForRun(h.t, second.id, (r) => r.status === "finished");

  // Enforced, it lets the call through and the approve hook is not asked.
  await patchHookAudited(h.t.db, admin, rule.id, { mode: "enforce" });
  const third = await startRun(h.t.db, operator, { agent: agent.name, prompt: "and again" });
  await waitForRun(h.t, third.id, (r) => r.status === "finished");
  expect(existsSync(path.join(h.workspacesDir, third.id, "always.txt"))).toBe(true);
  const enforced = await listRunHookInvocations(h.t.db, { runId: third.id });
  expect(enforced.find((r) => r.hookKey === rule.key)).toMatchObject({ matched: true, verdict: "allow", mode: "enforce", ignored: false });
  expect(enforced.find((r) => r.hookKey === "ask" && r.event === "tool.pre")).toMatchObject({ matched: false, reason: `not asked: hook ${rule.key} allows this call` });
  expect((await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 })).filter((a) => a.runId === third.id)).toEqual([]);
});

test("always allow needs an operator; a link cannot write rules", async () => {
  const agent = await gatedAgent("reach-always-viewer", "viewer.txt", { approvers: { roles: ["viewer"] } });
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  const pending = await parkedApproval(run.id);
  const bob = (await getUserByEmail(h.t.db, { email: "bob@example.com" }))!;
  const bobToken = (await addToken(h.t.db, { name: "bob", role: "viewer", userId: bob.id })).token;
  const refused = await callRoute(decisionRoute.POST, { method: "POST", token: bobToken, params: { id: pending.id }, body: { decision: "approve", alwaysAllow: true } });
  expect(refused.status).toBe(403);
  expect((await getApprovalInAnyProject(h.t.db, { id: pending.id }))!.status).toBe("pending");
  // Bob is an approver (the viewer role is named): a plain decision is his to make.
  expect((await callRoute(decisionRoute.POST, { method: "POST", token: bobToken, params: { id: pending.id }, body: { decision: "approve" } })).status).toBe(200);
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(await getApprovalInAnyProject(h.t.db, { id: pending.id })).toMatchObject({ status: "approved", decidedBy: "token:bob" });
});

test("a timed-out approval's messages say so, updated by whichever process sees the settlement", async () => {
  const agent = await gatedAgent("reach-timeout", "timeout.txt", { timeoutMs: 400 });
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  await postedFor("timeout.txt");
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  const update = await until(() => slack.requests.find((r) => r.url === "/chat.update" && r.body.includes("timeout.txt")), "the Slack update");
  expect(bodyOf(update).text).toBe("Approval timed out: agent reach-timeout may not run write_file `timeout.txt`");
});
