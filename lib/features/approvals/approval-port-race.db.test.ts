/**
 * A person quicker than the wait: a decision made after the approval row exists but before the
 * caller's listener is in place (while the request is still being announced) is found, not slept
 * through. Seen with Claude Code 2.1.332 answering its hook faster: the approval was decided 180 ms
 * after it appeared, the held call never woke, and Claude Code gave up on the hook two minutes later.
 * The waiter here never wakes on its own (it only ends when its signal aborts), so the only way
 * the port can answer is by reading the decision the announcement made.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { getApprovalInAnyProject, settleApproval } from "@/db/queries/approvals";
import { createRun } from "@/db/queries/runs";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { createDbApprovalPort } from "./approval-port";
import type { ApprovalWaiter } from "./approval-waiter";

let t: TestDatabase;
let runId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "quick" }) }))!;
  runId = (await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent.id, prompt: "write", source: "claude-code" })).id;
});
afterAll(async () => t?.drop());

test("an approval decided while its request is still being announced is answered at once, and the listener is let go", async () => {
  const listeners: { approvalId: string; aborted: () => boolean }[] = [];
  const deafWaiter: ApprovalWaiter = {
    wait: (approvalId, _ms, signal) =>
      new Promise<boolean>((resolve) => {
        listeners.push({ approvalId, aborted: () => signal?.aborted === true });
        signal?.addEventListener("abort", () => resolve(false), { once: true });
      }),
    stop: async () => {},
  };
  const announced: string[] = [];
  const port = createDbApprovalPort({
    db: t.db,
    waiter: deafWaiter,
    holdMs: 3_600_000,
    whenCallerLeaves: "abandon",
    announce: async (type, data) => {
      announced.push(type);
      // The person decides while the request is announced, before anyone listens.
      if (type === "approval.requested") await settleApproval(t.db, { id: data.approvalId as string, status: "approved", decidedBy: "user:quick", decidedVia: "dashboard", reason: "fine" });
    },
  });

  const answer = await port.request({ runId, hookId: "ask", toolName: "Write", toolInput: { file_path: "notes.txt" }, toolCallId: "t1", timeoutMs: 3_600_000, onTimeout: "deny" });
  expect(answer).toMatchObject({ decision: "approve", status: "approved", decidedBy: "user:quick", decidedVia: "dashboard", reason: "fine", timedOut: false });
  expect(announced).toEqual(["approval.requested", "approval.settled"]);
  const [listener] = listeners;
  expect(listeners).toHaveLength(1);
  expect(listener.aborted()).toBe(true);
  expect(await getApprovalInAnyProject(t.db, { id: listener.approvalId })).toMatchObject({ status: "approved", decidedBy: "user:quick" });
}, 30_000);
