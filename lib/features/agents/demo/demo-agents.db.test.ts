import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { listApprovals } from "@/db/queries/approvals";
import { getHookHealth, healthKey } from "@/db/queries/hook-health";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { getAgent } from "@/db/queries/agents";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { tryHooks } from "@/lib/features/hooks/hook-trial";
import { decideApproval, deciderOf } from "@/lib/features/approvals/approval-decisions";
import { startRun } from "@/lib/features/runs/run-service";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { createRunHarness, operator, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";
import { DEMO_AGENTS, RESEARCH_NOTES } from "./demo-agents";
import { seedDemoData } from "./seed-demo";

let h: RunHarness;

beforeAll(async () => {
  h = await createRunHarness();
  expect(await seedDemoData(h.t.db)).toBe(true);
  // Once only: a second start seeds nothing (a deleted demo agent stays deleted).
  expect(await seedDemoData(h.t.db)).toBe(false);
});
afterAll(async () => {
  await h.close();
});

async function finished(runId: string) {
  const run = await waitForRun(h.t, runId, (r) => r.status === "finished");
  // session.end's ledger rows land with the last events.
  for (let i = 0; i < 100 && !(await listRunHookInvocations(h.t.db, { runId })).some((r) => r.event === "session.end"); i++) await new Promise((r) => setTimeout(r, 50));
  return run;
}

async function pendingApprovalOf(runId: string) {
  await waitForRun(h.t, runId, (r) => r.status === "waiting_approval");
  const [approval] = (await listApprovals(h.t.db, { projectId: DEFAULT_PROJECT_ID, status: "pending", limit: 50 })).filter((a) => a.runId === runId);
  expect(approval).toMatchObject({ hookKey: "confirm-deal", toolName: "write_file" });
  return approval;
}

describe("the demo agents agree with what their hooks did", () => {
  test("coding-agent: the guard blocks the write under /srv/prod, the patch is written, and the answer says exactly that", async () => {
    const run = await startRun(h.t.db, operator, { agent: "coding-agent", prompt: "Bump the replicas to 3" });
    const done = await finished(run.id);
    expect(done).toMatchObject({ outcome: "completed", blocked: true, response: "Wrote app.yml.patch for review; /srv/prod is unchanged." });
    const events = await runEvents(h.t, run.id);
    const denied = events.filter((e) => e.type === "loop.tool_denied");
    expect(denied).toHaveLength(1);
    expect(denied[0].data).toMatchObject({ toolName: "write_file", reason: expect.stringContaining("Production paths are off-limits") });
    const written = events.filter((e) => e.type === "tool.post");
    expect(written.map((e) => [e.data.toolInput, e.data.isError])).toEqual([[{ path: "app.yml.patch", content: "replicas: 3\n" }, false]]);
    const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
    expect(ledger.filter((r) => r.hookKey === "no-prod").map((r) => r.verdict)).toEqual(["block", "allow"]);
  });

  test("coding-agent's guard holds for a bridged Claude Code, Codex or Gemini CLI too: Bash, Write, Edit under /srv/prod are blocked, elsewhere allowed", async () => {
    const guard = DEMO_AGENTS.find((d) => d.agent.name === "coding-agent")!.hooks[0];
    const hook = hookSpecSchema.parse({ ...guard, scope: "global" });
    const verdict = async (toolName: string, toolInput: Record<string, unknown>) =>
      (await tryHooks(h.t.db, operator, { hooks: [hook], event: { type: "tool.pre", toolName, toolInput } })).verdict;
    expect(await verdict("Bash", { command: "rm -rf /srv/prod/cache" })).toBe("block");
    expect(await verdict("Write", { file_path: "/srv/prod/app.yml", content: "x" })).toBe("block");
    expect(await verdict("Edit", { file_path: "/srv/prod/app.yml", old_string: "a", new_string: "b" })).toBe("block");
    expect(await verdict("MultiEdit", { file_path: "/srv/prod/app.yml", edits: [] })).toBe("block");
    expect(await verdict("apply_patch", { input: "*** Update File: /srv/prod/app.yml" })).toBe("block");
    expect(await verdict("run_shell_command", { command: "touch /srv/prod/x" })).toBe("block");
    expect(await verdict("Write", { file_path: "/home/me/app.yml", content: "x" })).toBe("allow");
    expect(await verdict("Read", { file_path: "/srv/prod/app.yml" })).toBe("allow");
  });

  test("price-checker: a denied deal is not recorded, the team is not notified, and the answer says so", async () => {
    const run = await startRun(h.t.db, operator, { agent: "price-checker", prompt: "Sony WH-1000XM5 headphones under $300" });
    const approval = await pendingApprovalOf(run.id);
    await decideApproval(h.t.db, await deciderOf(h.t.db, operator, "dashboard"), approval.id, { decision: "deny", reason: "not this week" });
    const done = await finished(run.id);
    expect(done.outcome).toBe("completed");
    // About what was asked (no chair), and no claim of a recorded deal.
    expect(done.response).toContain("Sony WH-1000XM5 headphones under $300");
    expect(done.response).toContain("not confirmed, so nothing was recorded and the team is not notified");
    expect(done.response).not.toMatch(/chair/i);
    const events = await runEvents(h.t, run.id);
    expect(events.filter((e) => e.type === "tool.post")).toHaveLength(0);
    const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
    // No metadata.json, so the Slack notice's `when` did not hold: it did not run.
    expect(ledger.find((r) => r.hookKey === "price-alert")).toMatchObject({ matched: false });
  });

  test("price-checker: a confirmed deal is recorded and the Slack notice fires; without its token it fails, and its health says failing", async () => {
    const run = await startRun(h.t.db, operator, { agent: "price-checker", prompt: "Hyken mesh chair" });
    const approval = await pendingApprovalOf(run.id);
    await decideApproval(h.t.db, await deciderOf(h.t.db, operator, "dashboard"), approval.id, { decision: "approve" });
    const done = await finished(run.id);
    expect(done.response).toBe("Price check for “Hyken mesh chair” done: $159.99 at Staples meets the target, and the deal is recorded for the team.");
    const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
    expect(ledger.find((r) => r.hookKey === "price-alert")).toMatchObject({ matched: true, failed: true, verdict: "allow", reason: expect.stringContaining("SLACK_BOT_TOKEN") });
    const agent = (await getAgent(h.t.db, { projectId: DEFAULT_PROJECT_ID, ref: "price-checker" }))!;
    const scope = `agent:${agent.id}`;
    const health = await getHookHealth(h.t.db, { projectId: DEFAULT_PROJECT_ID, hooks: [{ scope, key: "price-alert" }], since: new Date(Date.now() - 60_000 * 60) });
    expect(health.get(healthKey(scope, "price-alert"))).toMatchObject({ fired: 1, failed: 1, failingNow: true });
  });

  test("researcher: its rules reach the model as context, and the notes it appends are the notes it reads next time", async () => {
    const first = await startRun(h.t.db, operator, { agent: "researcher", prompt: "agent hooks" });
    const firstDone = await finished(first.id);
    expect(firstDone.response).toContain("Summary for “agent hooks”");
    const firstLedger = await listRunHookInvocations(h.t.db, { runId: first.id });
    expect(firstLedger.find((r) => r.hookKey === "research-rules")).toMatchObject({ event: "model.pre", matched: true, verdict: "allow" });
    expect(firstLedger.find((r) => r.hookKey === "append-notes")).toMatchObject({ matched: true, failed: false, output: expect.stringContaining(RESEARCH_NOTES) });

    const second = await startRun(h.t.db, operator, { agent: "researcher", prompt: "approval gates" });
    await finished(second.id);
    const read = (await listRunHookInvocations(h.t.db, { runId: second.id })).find((r) => r.hookKey === "read-notes");
    // The loop closes: what the first run appended is what the second one read.
    expect(read?.output).toContain(firstDone.response);
  });
});
