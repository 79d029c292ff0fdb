/**
 * Flows run their agents' hooks (issue 20; AgenTopology, agentopology/agentopology
 * src/bindings/__tests__/bindings.test.ts: each agent's hooks and its SubagentStop gate are
 * wired per agent). A stage agent's own hooks apply inside a flow as when it runs alone, events of
 * a stage carry the stage agent's name (AgentStop matchers see it, not the flow's), and hooks of
 * the flow itself still apply to every stage. Driven through startRun and the run queue.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { createHook } from "@/db/queries/hooks";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { startRun } from "./run-service";
import { addAgent, createRunHarness, operator, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";
import { setEnv } from "@/test/config-env";

let h: RunHarness;
beforeAll(async () => {
  setEnv({ HOOKPLANE_ALLOW_CODE_EXECUTION: "1" });
  h = await createRunHarness();
});
afterAll(async () => {
  setEnv({ HOOKPLANE_ALLOW_CODE_EXECUTION: undefined });
  await h.close();
});

const shellTurn = (command: string) => ({ text: "running", toolCalls: [{ name: "shell", input: { command } }], usage: { inputTokens: 10, outputTokens: 2 } });

test("a stage agent's own tool.pre hook blocks its tool inside a flow, as when it runs alone; the flow's hooks apply too", async () => {
  const writer = await addAgent(
    h.t,
    { name: "flow-writer", tools: ["shell"], script: [shellTurn("touch stage-marker"), { text: "draft written" }] },
    [{ id: "no-marker", event: "tool.pre", matcher: "shell", action: { type: "block", reason: "the writer may not touch markers", denyIf: "marker" } }],
  );
  const reviewer = await addAgent(h.t, { name: "flow-reviewer", tools: [], script: [{ text: "looks good" }] });
  const flow = await addAgent(h.t, { name: "flow-pipeline", flow: [writer.name, reviewer.name] }, [
    { id: "flow-audit", event: "tool.pre", action: { type: "log" } },
  ]);

  const run = await startRun(h.t.db, operator, { agent: flow.name, prompt: "write then review" });
  const done = await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(done.outcome).toBe("completed");
  expect(done.response).toBe("looks good");
  expect(existsSync(path.join(h.workspacesDir, run.id, "stage-marker"))).toBe(false);

  const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
  const toolPre = ledger.filter((l) => l.event === "tool.pre").map((l) => [l.hookKey, l.scope, l.matched, l.verdict]);
  // Scope order inside a stage: the flow's hooks, then the stage agent's.
  expect(toolPre).toEqual([
    ["flow-audit", `agent:${flow.id}`, true, "allow"],
    ["no-marker", `agent:${writer.id}`, true, "block"],
  ]);
  const denied = (await runEvents(h.t, run.id)).find((e) => e.type === "loop.tool_denied");
  expect(denied?.data).toMatchObject({ toolName: "shell", reason: "the writer may not touch markers", by: "hook" });
});

test("agent.stop matchers see the stage agent, not the flow; a blocking gate sends that agent back once", async () => {
  const drafter = await addAgent(h.t, { name: "gate-drafter", tools: [], script: [{ text: "draft 1" }, { text: "draft 2" }] });
  const checker = await addAgent(h.t, { name: "gate-checker", tools: [], script: [{ text: "checked" }] });
  const flow = await addAgent(h.t, { name: "gate-flow", flow: [drafter.name, checker.name] });
  // AgenTopology's gate after gate-drafter: a blocking agent.stop hook matching that agent.
  await createHook(h.t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({
      id: "review-gate",
      event: "agent.stop",
      scope: "global",
      matcher: drafter.name,
      // Sends the drafter back once (a marker in the run's workspace), then lets it stop.
      action: { type: "command", command: `[ -e .gate-passed ] && exit 0; touch .gate-passed; echo "revise the draft" >&2; exit 2` },
      onFailure: "block",
    }),
    actor: "test",
  });

  const run = await startRun(h.t.db, operator, { agent: flow.name, prompt: "draft and check" });
  const done = await waitForRun(h.t, run.id, (r) => r.status === "finished");
  expect(done.outcome).toBe("completed");
  const ledger = (await listRunHookInvocations(h.t.db, { runId: run.id })).filter((l) => l.hookKey === "review-gate");
  // Matched on the drafter's stops only (the flow's name never reaches the matcher).
  expect(ledger.map((l) => [l.matched, l.verdict, l.skipReason])).toEqual([
    [true, "block", null],
    [true, "allow", null],
    [false, null, "matcher gate-drafter did not match agent gate-checker"],
  ]);
});
