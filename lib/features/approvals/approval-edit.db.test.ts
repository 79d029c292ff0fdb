/**
 * An approver edits a tool call before approving it, on Hookplane's own agent (the worker runs
 * the call): through the API and through a decision link. The edited input is what the tool
 * writes, the approval and the ledger keep what was asked and what was approved, and from the
 * wrong side (a viewer's link, bad JSON) nothing is decided and nothing stored.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getApprovalInAnyProject, listApprovals } from "@/db/queries/approvals";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { getUserByEmail } from "@/db/queries/users";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import * as decisionRoute from "@/app/api/v1/approvals/[id]/decision/route";
import * as decideRoute from "@/app/decide/[token]/route";
import { callRoute } from "@/test/api-client";
import { setEnv } from "@/test/config-env";
import { addPerson, addToken } from "@/test/people";
import { addAgent, createRunHarness, operator, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";
import { startRun } from "../runs/run-service";
import { linkExpiry, mintDecisionToken, toolInputHash } from "./decision-links";

const PUBLIC = "https://hookplane.example.com";
let h: RunHarness;
let approverToken: string;
let restoreEnv: () => void;

beforeAll(async () => {
  restoreEnv = setEnv({ HOOKPLANE_PUBLIC_URL: PUBLIC });
  h = await createRunHarness({ approvalHoldMs: 150 });
  for (const [email, role] of [["alice@example.com", "operator"], ["bob@example.com", "viewer"]] as const) {
    await addPerson(h.t.db, { email, passwordHash: "unused", role });
  }
  const alice = (await getUserByEmail(h.t.db, { email: "alice@example.com" }))!;
  approverToken = (await addToken(h.t.db, { role: "operator", userId: alice.id, name: "alice-token" })).token;
});

afterAll(async () => {
  await h?.close();
  restoreEnv?.();
});

async function parkedWrite(name: string, file: string) {
  const agent = await addAgent(h.t, { name, tools: ["write_file"], script: [{ toolCalls: [{ name: "write_file", input: { path: file, content: "as the model wrote it\n" } }] }, { text: "done" }] }, [
    { id: "ask", event: "tool.pre", matcher: "write_file", action: { type: "approve", timeoutMs: 600_000 } },
  ]);
  const run = await startRun(h.t.db, operator, { agent: agent.name, prompt: "write it" });
  await waitForRun(h.t, run.id, (r) => r.status === "waiting_approval" && r.leaseOwner === null);
  const [approval] = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 100 })).filter((a) => a.runId === run.id);
  return { run, approval };
}

const written = (runId: string, file: string) => readFileSync(path.join(h.workspacesDir, runId, file), "utf8");

test("API: the worker runs the edited call; the approval, the ledger and the run's events say what was asked and what ran", async () => {
  const { run, approval } = await parkedWrite("edit-api", "api.txt");
  const asked = { path: "api.txt", content: "as the model wrote it\n" };
  expect(approval.toolInput).toEqual(asked);
  const edited = { path: "api.txt", content: "as the approver edited it\n" };
  const res = await callRoute(decisionRoute.POST, { method: "POST", token: approverToken, params: { id: approval.id }, body: { decision: "approve", input: edited } });
  expect(res.status).toBe(200);
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(written(run.id, "api.txt")).toBe("as the approver edited it\n");
  expect(await getApprovalInAnyProject(h.t.db, { id: approval.id })).toMatchObject({ toolInput: asked, approvedInput: edited, decidedBy: "token:alice-token", decidedVia: "api" });
  const row = (await listRunHookInvocations(h.t.db, { runId: run.id })).find((r) => r.hookKey === "ask" && r.verdict === "allow")!;
  expect(row.modification).toEqual({ kind: "input", proposed: asked, approved: edited, effective: edited, applied: true });
  const events = await runEvents(h.t, run.id);
  expect(events.find((e) => e.type === "loop.tool_modified")?.data).toMatchObject({ kind: "input", input: edited, by: ["ask"] });
  expect(events.find((e) => e.type === "tool.post")?.data).toMatchObject({ toolInput: edited });
});

test("decision link: an operator's approve link edits the call; a viewer's has no editor and an edit sent anyway is refused", async () => {
  const { run, approval } = await parkedWrite("edit-link", "link.txt");
  const claims = { approvalId: approval.id, runId: run.id, inputHash: toolInputHash(approval.toolInput), expiresAt: linkExpiry(approval), decision: "approve" as const };
  const open = async (recipient: string) => {
    const token = mintDecisionToken({ ...claims, recipient });
    const response = await decideRoute.GET(new Request(`${PUBLIC}/decide/${token}`), { params: Promise.resolve({ token }) });
    return { token, html: await response.text() };
  };
  const post = async (token: string, html: string, input: string) => {
    const confirm = /name="confirm" value="([^"]+)"/.exec(html)![1];
    const response = await decideRoute.POST(
      new Request(`${PUBLIC}/decide/${token}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ confirm, input }) }),
      { params: Promise.resolve({ token }) },
    );
    return { status: response.status, html: await response.text() };
  };

  const bobs = await open("user:bob@example.com");
  expect(bobs.html).not.toContain('data-testid="decision-input"');
  const byBob = await post(bobs.token, bobs.html, JSON.stringify({ path: "link.txt", content: "bob's\n" }));
  expect(byBob.status).toBe(403);
  expect(byBob.html).toContain("Editing the input before approving needs an operator or admin");

  const alices = await open("user:alice@example.com");
  expect(alices.html).toContain('data-testid="decision-input"');
  const notJson = await post(alices.token, alices.html, "{path: link.txt");
  expect(notJson.status).toBe(400);
  expect(notJson.html).toContain("input: not JSON");
  const notObject = await post(alices.token, alices.html, '"just text"');
  expect(notObject.status).toBe(400);
  expect(notObject.html).toContain("input: ");
  expect(await getApprovalInAnyProject(h.t.db, { id: approval.id })).toMatchObject({ status: "pending", approvedInput: null });

  const edited = { path: "link.txt", content: "edited on the link page\n" };
  expect((await post(alices.token, alices.html, JSON.stringify(edited))).status).toBe(200);
  await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(written(run.id, "link.txt")).toBe("edited on the link page\n");
  expect(await getApprovalInAnyProject(h.t.db, { id: approval.id })).toMatchObject({ status: "approved", approvedInput: edited, decidedBy: "user:alice@example.com", decidedVia: "link" });
});
