/**
 * "Edit & approve" in Slack (issue 28, item 4), against a local server that speaks Slack's API:
 * the button is on the message where the agent can run a rewritten input, the click opens a
 * modal through views.open (the click's trigger_id, the message's bot token, the input as pretty
 * JSON), and the submission approves with the edited input, which is what the tool then writes;
 * the approval, the ledger and the audit keep what was asked, what was approved and who decided.
 * From the wrong side (unlinked, not a member, a viewer, replayed, forged, decided meanwhile, bad
 * JSON, not an object) nothing is decided and nothing stored, and Slack gets the right answer.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getOrCreateApproval, getApprovalInAnyProject, listApprovals } from "@/db/queries/approvals";
import { listAudit } from "@/db/queries/audit";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { createRun } from "@/db/queries/runs";
import { getUserByEmail } from "@/db/queries/users";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";
import * as slackRoute from "@/app/api/integrations/slack/interactions/route";
import { json, startServer, type LocalServer, type RecordedRequest } from "@/lib/core/hooks/testing/fakes";
import { putSecretAudited } from "@/lib/features/secrets/secret-store";
import { forgetSecretBox, getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { setUserSlackIdAudited } from "@/lib/platform/auth/user-service";
import { callRoute } from "@/test/api-client";
import { setEnv } from "@/test/config-env";
import { addPerson, addToken } from "@/test/people";
import { addAgent, createRunHarness, operator, personIn, waitForRun, type RunHarness } from "@/test/run-harness";
import { startRun } from "../runs/run-service";
import { approvalNoticeInfo } from "./approval-notices";
import { linkExpiry, toolInputHash } from "./decision-links";
import { reachConfig } from "./reach-config";
import { slackButtonValue } from "./slack-button-value";
import { EDIT_BLOCK_ID, EDIT_CALLBACK_ID } from "./slack-edit-modal";
import { slackSignature } from "./slack-interactions";

const PUBLIC = "https://hookplane.example.com";
const SIGNING_SECRET = "e1c0ffee5eed5ec7e7a11a9e5ec7e7a1";
const SLACK_TS = "1700000000.000200";
const admin = personIn("admin", undefined, "admin@example.com");

let h: RunHarness;
let slack: LocalServer;
let aliceToken: string;
let restoreEnv: () => void;

beforeAll(async () => {
  slack = await startServer((req, res) => {
    if (req.url === "/chat.postMessage") return json(res, 200, { ok: true, channel: "C0EDIT", ts: SLACK_TS, message: {} });
    if (req.url === "/views.open") return json(res, 200, { ok: true, view: { id: "V0EDIT" } });
    return json(res, 200, { ok: true });
  });
  restoreEnv = setEnv({
    HOOKPLANE_PUBLIC_URL: PUBLIC,
    HOOKPLANE_SLACK_SIGNING_SECRET: SIGNING_SECRET,
    HOOKPLANE_SLACK_BASE_URL: slack.url,
    HOOKPLANE_ALLOW_PRIVATE_HOSTS: "127.0.0.1",
    HOOKPLANE_SECRET_KEY: randomBytes(32).toString("base64"),
  });
  forgetSecretBox();
  h = await createRunHarness({ approvalHoldMs: 150 });
  const db = h.t.db;
  // Alice operates, Bob views, Dave has an account but is no member of the project.
  for (const [email, role, slackId] of [
    ["alice@example.com", "operator", "UALICE01"],
    ["bob@example.com", "viewer", "UBOB0001"],
    ["dave@example.com", null, "UDAVE001"],
  ] as const) {
    const user = await addPerson(db, { email, passwordHash: "unused", role });
    await setUserSlackIdAudited(db, admin, { id: user.id, slackUserId: slackId });
  }
  const alice = (await getUserByEmail(db, { email: "alice@example.com" }))!;
  aliceToken = (await addToken(db, { name: "alice", role: "operator", userId: alice.id })).token;
  await putSecretAudited(db, getSecretBox(), admin, { name: "SLACK_BOT_TOKEN", value: "xoxb-edit-test-1", hosts: ["127.0.0.1"] });
});

afterAll(async () => {
  await h?.close();
  await slack?.close();
  restoreEnv?.();
  forgetSecretBox();
});

const asked = (file: string) => ({ path: file, content: "as the model wrote it\n" });

/** Hookplane's own agent writing `file`, asked about first, with a Slack message about it. */
async function parkedWrite(name: string, file: string, approve: Record<string, unknown> = {}) {
  const agent = await addAgent(h.t, { name, tools: ["write_file"], script: [{ toolCalls: [{ name: "write_file", input: asked(file) }] }, { text: "done" }] }, [
    { id: "ask", event: "tool.pre", matcher: "write_file", action: { type: "approve", timeoutMs: 600_000, onTimeout: "deny", ...approve } },
    { id: "tell-slack", event: "approval.requested", action: { type: "slack", channel: "C0EDIT", tokenSecret: "SLACK_BOT_TOKEN" } },
  ]);
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  await waitForRun(h.t, run.id, (r) => r.status === "waiting_approval" && r.leaseOwner === null);
  const [approval] = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 100 })).filter((a) => a.runId === run.id);
  const posted = await until(() => slack.requests.find((r) => r.url === "/chat.postMessage" && r.body.includes(file)), `the message about ${file}`);
  return { run, approval, message: bodyOf(posted) };
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

function buttons(message: { blocks: { type: string; elements?: { action_id: string; value: string }[] }[] }): Record<string, string> {
  const actions = message.blocks.find((b) => b.type === "actions")!;
  return Object.fromEntries(actions.elements!.map((e) => [e.action_id, e.value]));
}

let sent = 0;
/** A payload as Slack signs and sends it (or not, with `secret`/`signature`). */
function signed(payload: Record<string, unknown>, options: { secret?: string; signature?: string } = {}) {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    body,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": timestamp,
      "x-slack-signature": options.signature ?? slackSignature(options.secret ?? SIGNING_SECRET, timestamp, body),
    },
  };
}

const user = (id: string) => ({ id, username: id.toLowerCase(), team_id: "T0TEAM" });

function editClick(value: string, userId: string) {
  return {
    type: "block_actions",
    user: user(userId),
    trigger_id: `13345224609.738474920.${String(++sent).padStart(6, "0")}`,
    channel: { id: "C0EDIT", name: "edits" },
    message: { ts: SLACK_TS },
    response_url: `${slack.url}/respond/${userId}`,
    actions: [{ action_id: "hookplane_edit", block_id: "hookplane_decision", value, type: "button", action_ts: `1700000002.${sent}` }],
  };
}

function submission(privateMetadata: string, userId: string, text: string) {
  return {
    type: "view_submission",
    user: user(userId),
    trigger_id: `13345224609.738474921.${String(++sent).padStart(6, "0")}`,
    view: {
      id: "V0EDIT",
      type: "modal",
      callback_id: EDIT_CALLBACK_ID,
      private_metadata: privateMetadata,
      state: { values: { [EDIT_BLOCK_ID]: { input: { type: "plain_text_input", value: text } } } },
    },
    response_urls: [],
  };
}

async function send(request: { body: string; headers: Record<string, string> }) {
  const response = await slackRoute.POST(new Request("http://localhost/api/integrations/slack/interactions", { method: "POST", headers: request.headers, body: request.body }));
  return { status: response.status, text: await response.text() };
}

const viewsOpened = () => slack.requests.filter((r) => r.url === "/views.open");
const ephemeralTo = (userId: string) => slack.requests.filter((r) => r.url === `/respond/${userId}`).map((r) => bodyOf(r).text as string);
const errorsAnswer = (message: string) => JSON.stringify({ response_action: "errors", errors: { [EDIT_BLOCK_ID]: message } });
const written = (runId: string, file: string) => readFileSync(path.join(h.workspacesDir, runId, file), "utf8");

/** Nothing decided and nothing stored about the approval. */
async function expectUndecided(approvalId: string) {
  expect(await getApprovalInAnyProject(h.t.db, { id: approvalId })).toMatchObject({ status: "pending", approvedInput: null, decidedBy: null, decidedVia: null, decidedAt: null });
  expect(await listAudit(h.t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "approval", entityId: approvalId, limit: 10 })).toEqual([]);
}

test("edit & approve: the click opens the editor with the input; the submission runs the edited call, and the record says what was asked, what ran and who decided", async () => {
  const { run, approval, message } = await parkedWrite("slack-edit", "edit.txt");
  const { hookplane_edit: edit } = buttons(message);
  expect(Object.keys(buttons(message))).toEqual(["hookplane_approve", "hookplane_deny", "hookplane_edit"]);

  const click = editClick(edit, "UALICE01");
  expect(await send(signed(click))).toEqual({ status: 200, text: "" });
  const opened = await until(() => viewsOpened()[0], "views.open");
  expect(opened.headers.authorization).toBe("Bearer xoxb-edit-test-1");
  const { trigger_id, view } = bodyOf(opened);
  expect(trigger_id).toBe(click.trigger_id);
  expect(view).toMatchObject({ type: "modal", callback_id: EDIT_CALLBACK_ID, submit: { type: "plain_text", text: "Approve" } });
  const field = view.blocks.find((b: { block_id?: string }) => b.block_id === EDIT_BLOCK_ID);
  expect(field.element).toEqual({ type: "plain_text_input", action_id: "input", multiline: true, initial_value: JSON.stringify(asked("edit.txt"), null, 2), max_length: 3000 });
  expect(JSON.parse(view.private_metadata)).toEqual({ value: edit, channel: "C0EDIT", messageTs: SLACK_TS });
  // Opening decides nothing.
  await expectUndecided(approval.id);

  const edited = { path: "edit.txt", content: "as alice edited it in slack\n" };
  expect(await send(signed(submission(view.private_metadata, "UALICE01", JSON.stringify(edited, null, 2))))).toEqual({ status: 200, text: "" });
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(written(run.id, "edit.txt")).toBe(edited.content);

  expect(await getApprovalInAnyProject(h.t.db, { id: approval.id })).toMatchObject({
    status: "approved",
    toolInput: asked("edit.txt"),
    approvedInput: edited,
    decidedBy: "alice@example.com",
    decidedVia: "slack",
  });
  const row = (await listRunHookInvocations(h.t.db, { runId: run.id })).find((r) => r.hookKey === "ask" && r.verdict === "allow")!;
  expect(row.modification).toEqual({ kind: "input", proposed: asked("edit.txt"), approved: edited, effective: edited, applied: true });
  expect(row.approval).toMatchObject({ approvalId: approval.id, status: "approved", decidedBy: "alice@example.com", decidedVia: "slack" });
  const audit = await listAudit(h.t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "approval", entityId: approval.id, limit: 10 });
  expect(audit.map((a) => [a.actor, a.action])).toEqual([["alice@example.com", "approval.approve"]]);
  expect(audit[0].after).toMatchObject({ toolInput: asked("edit.txt"), approvedInput: edited, slack: { userId: "UALICE01", channel: "C0EDIT", messageTs: SLACK_TS } });
  // The message says how it ended, as on any decision.
  const update = await until(() => slack.requests.find((r) => r.url === "/chat.update" && r.body.includes("edit.txt")), "chat.update");
  expect(bodyOf(update).text).toMatch(/^Approved by alice@example.com via slack/);
});

test("the click from the wrong side opens nothing and decides nothing: unlinked, not a member, a viewer, replayed, forged, an approve value", async () => {
  const { approval, message } = await parkedWrite("slack-edit-click", "click.txt");
  const { hookplane_edit: edit, hookplane_approve: approve } = buttons(message);
  const before = viewsOpened().length;

  expect(await send(signed(editClick(edit, "UALICE01"), { secret: "not-the-secret" }))).toMatchObject({ status: 401 });
  expect(await send(signed(editClick(edit, "UALICE01"), { signature: "v0=" + "0".repeat(64) }))).toMatchObject({ status: 401 });
  for (const who of ["U0NOBODY", "UDAVE001", "UBOB0001"]) expect(await send(signed(editClick(edit, who)))).toEqual({ status: 200, text: "" });
  const once = signed(editClick(edit, "U0NOBODY"));
  expect((await send(once)).status).toBe(200);
  expect(await send(once)).toMatchObject({ status: 409 });
  // The Approve button's value under the edit action is no edit button of ours.
  expect(await send(signed(editClick(approve, "UALICE01")))).toEqual({ status: 200, text: "" });

  await until(() => (ephemeralTo("UALICE01").length && ephemeralTo("UBOB0001").length && ephemeralTo("UDAVE001").length && ephemeralTo("U0NOBODY").length === 2 ? true : undefined), "the ephemeral answers");
  expect(ephemeralTo("U0NOBODY")[0]).toMatch(/^Your Slack account \(U0NOBODY\) is not linked to a Hookplane user, so nothing was decided/);
  expect(ephemeralTo("UDAVE001")).toEqual(["You (dave@example.com) are not a member of the project this approval belongs to, so nothing was decided."]);
  expect(ephemeralTo("UBOB0001")).toEqual(["Deciding an approval needs the operator role; you are viewer. Nothing was decided."]);
  expect(ephemeralTo("UALICE01")).toEqual(["This button is not one Hookplane made; nothing was decided."]);
  expect(viewsOpened()).toHaveLength(before);
  await expectUndecided(approval.id);
});

test("a viewer named as approver may approve as asked, but not edit: the editor does not open", async () => {
  const { approval, message } = await parkedWrite("slack-edit-viewer", "viewer.txt", { approvers: { roles: ["viewer"] } });
  const before = viewsOpened().length;
  const payload = { ...editClick(buttons(message).hookplane_edit, "UBOB0001"), response_url: `${slack.url}/respond/viewer-approver` };
  expect(await send(signed(payload))).toEqual({ status: 200, text: "" });
  const told = await until(() => slack.requests.find((r) => r.url === "/respond/viewer-approver"), "the ephemeral answer");
  expect(bodyOf(told).text).toBe("Editing the input before approving needs an operator or admin; you (bob@example.com, viewer) may approve or deny it as asked. Nothing was decided.");
  // Alice operates but is not among the approvers.
  const alices = { ...editClick(buttons(message).hookplane_edit, "UALICE01"), response_url: `${slack.url}/respond/not-approver` };
  expect(await send(signed(alices))).toEqual({ status: 200, text: "" });
  const toAlice = await until(() => slack.requests.find((r) => r.url === "/respond/not-approver"), "alice's ephemeral answer");
  expect(bodyOf(toAlice).text).toBe("Only any viewer may decide this approval. Nothing was decided.");
  expect(viewsOpened()).toHaveLength(before);
  await expectUndecided(approval.id);
});

test("the submission is checked again: a viewer, unlinked, not a member, replayed, forged, bad JSON, not an object, decided meanwhile → an error in the modal, nothing decided", async () => {
  const { run, approval, message } = await parkedWrite("slack-edit-submit", "submit.txt");
  const click = editClick(buttons(message).hookplane_edit, "UALICE01");
  const before = viewsOpened().length;
  expect((await send(signed(click))).status).toBe(200);
  const { view } = bodyOf(await until(() => viewsOpened()[before], "views.open"));
  const metadata: string = view.private_metadata;
  const edited = JSON.stringify({ path: "submit.txt", content: "edited\n" });

  // The same modal submitted by others (a forwarded payload, a changed role): each is checked.
  expect(await send(signed(submission(metadata, "UBOB0001", edited)))).toEqual({ status: 200, text: errorsAnswer("Deciding an approval needs the operator role; you are viewer. Nothing was decided.") });
  const unlinked = await send(signed(submission(metadata, "U0NOBODY", edited)));
  expect(JSON.parse(unlinked.text).errors[EDIT_BLOCK_ID]).toMatch(/^Your Slack account \(U0NOBODY\) is not linked to a Hookplane user/);
  expect(await send(signed(submission(metadata, "UDAVE001", edited)))).toEqual({
    status: 200,
    text: errorsAnswer("You (dave@example.com) are not a member of the project this approval belongs to, so nothing was decided."),
  });
  expect(await send(signed(submission(JSON.stringify({ value: "not.ours" }), "UALICE01", edited)))).toEqual({ status: 200, text: errorsAnswer("This button is not one Hookplane made; nothing was decided.") });
  expect(await send(signed(submission(metadata, "UALICE01", edited), { secret: "not-the-secret" }))).toMatchObject({ status: 401 });

  const notJson = await send(signed(submission(metadata, "UALICE01", '{"path": "submit.txt", content')));
  expect(notJson.status).toBe(200);
  expect(JSON.parse(notJson.text)).toMatchObject({ response_action: "errors", errors: { [EDIT_BLOCK_ID]: expect.stringMatching(/^Not JSON \(.+\); nothing was decided\.$/) } });
  for (const notObject of ['"just text"', "[1, 2]", "null", "42"]) {
    expect(await send(signed(submission(metadata, "UALICE01", notObject)))).toEqual({
      status: 200,
      text: errorsAnswer("The input must be one JSON object ({ … }), like the tool's input; nothing was decided."),
    });
  }
  const replayed = signed(submission(metadata, "UALICE01", "[]"));
  expect((await send(replayed)).status).toBe(200);
  expect(await send(replayed)).toMatchObject({ status: 409 });
  await expectUndecided(approval.id);

  // Decided meanwhile (denied through the API): the submission says so and changes nothing.
  expect((await callRoute(decisionRoute.POST, { method: "POST", token: aliceToken, params: { id: approval.id }, body: { decision: "deny" } })).status).toBe(200);
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  const late = await send(signed(submission(metadata, "UALICE01", edited)));
  expect(JSON.parse(late.text).errors[EDIT_BLOCK_ID]).toMatch(/^Already decided\. It was denied by token:alice via api/);
  expect(await getApprovalInAnyProject(h.t.db, { id: approval.id })).toMatchObject({ status: "denied", approvedInput: null, decidedBy: "token:alice", decidedVia: "api" });
  expect((await listAudit(h.t.db, { projectId: DEFAULT_PROJECT_ID, entityType: "approval", entityId: approval.id, limit: 10 })).map((a) => a.actor)).toEqual(["token:alice"]);
});

test("no edit button where the agent cannot run a rewritten input (a Codex session); Claude Code and Hookplane's own agents get one; a forged click is refused", async () => {
  const agent = await addAgent(h.t, { name: "slack-edit-bridged", tools: ["write_file"], script: [{ text: "unused" }] });
  const config = reachConfig();
  const approvalOf = async (source: string, externalSessionId: string | undefined) => {
    const run = await createRun(h.t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "p", source, externalSessionId });
    const { row } = await getOrCreateApproval(h.t.db, { runId: run.id, hookKey: "ask", toolName: "Bash", toolInput: { command: "ls" }, toolCallId: "call-1", onTimeout: "deny", expiresAt: null });
    return row;
  };
  const info = async (approvalId: string) => (await approvalNoticeInfo(h.t.db, config, approvalId, "slack:C0EDIT", { perApprover: false, editButton: true }))!;

  const codex = await approvalOf("codex", "codex-session-1");
  expect((await info(codex.id)).editButtonValue).toBeUndefined();
  expect((await info((await approvalOf("claude-code", "claude-session-1")).id)).editButtonValue).toEqual(expect.any(String));
  expect((await info((await approvalOf("api", undefined)).id)).editButtonValue).toEqual(expect.any(String));
  // Not asked for (Discord, a webhook, a Slack message without interactivity): none either.
  expect((await approvalNoticeInfo(h.t.db, config, codex.id, "discord:1", { perApprover: true }))!.editButtonValue).toBeUndefined();

  // A value minted for the Codex approval anyway: the click is refused, no editor opens.
  const value = slackButtonValue({ approvalId: codex.id, runId: codex.runId, recipient: "slack:C0EDIT", inputHash: toolInputHash(codex.toolInput), expiresAt: linkExpiry(codex), decision: "approve" }, "edit");
  const before = viewsOpened().length;
  const payload = { ...editClick(value, "UALICE01"), response_url: `${slack.url}/respond/codex-click` };
  expect(await send(signed(payload))).toEqual({ status: 200, text: "" });
  const told = await until(() => slack.requests.find((r) => r.url === "/respond/codex-click"), "the ephemeral answer");
  expect(bodyOf(told).text).toBe(
    `Codex cannot run a tool call with a rewritten input; approve or deny it as asked, or edit it in the dashboard: <${PUBLIC}/approvals#approval-${codex.id}|Open the approval>. Nothing was decided.`,
  );
  expect(viewsOpened()).toHaveLength(before);
  await expectUndecided(codex.id);
});

test("an input too long for Slack's text field: the clicker is told to edit it in the dashboard", async () => {
  const agent = await addAgent(h.t, { name: "slack-edit-long", tools: ["write_file"], script: [{ toolCalls: [{ name: "write_file", input: { path: "long.txt", content: "x".repeat(3100) } }] }, { text: "done" }] }, [
    { id: "ask", event: "tool.pre", matcher: "write_file", action: { type: "approve", timeoutMs: 600_000, onTimeout: "deny" } },
    { id: "tell-slack", event: "approval.requested", action: { type: "slack", channel: "C0EDIT", tokenSecret: "SLACK_BOT_TOKEN" } },
  ]);
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  await waitForRun(h.t, run.id, (r) => r.status === "waiting_approval" && r.leaseOwner === null);
  const [approval] = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 100 })).filter((a) => a.runId === run.id);
  const message = bodyOf(await until(() => slack.requests.find((r) => r.url === "/chat.postMessage" && r.body.includes("long.txt")), "the message"));
  const before = viewsOpened().length;
  const payload = { ...editClick(buttons(message).hookplane_edit, "UALICE01"), response_url: `${slack.url}/respond/long-click` };
  expect(await send(signed(payload))).toEqual({ status: 200, text: "" });
  const told = await until(() => slack.requests.find((r) => r.url === "/respond/long-click"), "the ephemeral answer");
  const length = JSON.stringify(approval.toolInput, null, 2).length;
  expect(bodyOf(told)).toEqual({
    response_type: "ephemeral",
    replace_original: false,
    text: `This tool input is ${length} characters of JSON, more than the 3000 a Slack text field holds: edit it in the dashboard instead: <${PUBLIC}/approvals#approval-${approval.id}|Open the approval>. Nothing was decided.`,
  });
  expect(viewsOpened()).toHaveLength(before);
  await expectUndecided(approval.id);
});
