/**
 * AgenTopology's `.at` hooks as canonical specs: `on: ToolUse` = tool.pre, `AgentStart` =
 * agent.start, `Error` = error; `type: command` (default) runs with $AGENT_NAME, $TOOL_NAME,
 * $ERROR_MSG; `type: prompt` = a context action; `matcher` scopes to a tool or an agent; hooks in
 * an agent block are scoped to that agent; `timeout` is in seconds (the importer converts).
 */
import { describe, expect, it } from "vitest";
import { createHookRuntime } from "../runtime";
import { event, hook, toolPre } from "../testing/fakes";

const runtime = createHookRuntime({ allowCodeExecution: true });

describe("AgenTopology conformance", () => {
  it('matcher: "Write" fires for the Write tool only, with $TOOL_NAME and $AGENT_NAME set', async () => {
    const logWrites = hook({ id: "log-writes", event: "tool.pre", matcher: "Write", action: { type: "command", command: `echo "Write tool used by $AGENT_NAME ($TOOL_NAME)"` } });
    const write = await runtime.dispatch([logWrites], toolPre("Write", {}, { agentName: "writer" }));
    expect(write.ledger[0]).toMatchObject({ matched: true, stdout: "Write tool used by writer (Write)\n" });
    for (const tool of ["WebSearch", "WriteFile", "Read"]) {
      expect((await runtime.dispatch([logWrites], toolPre(tool))).ledger[0].matched).toBe(false);
    }
  });

  it("type: prompt injects its text into the agent context", async () => {
    const safety = hook({ id: "safety-reminder", event: "agent.start", action: { type: "context", text: "Remember: never expose API keys or credentials in your output." } });
    const result = await runtime.dispatch([safety], event("agent.start", {}, { agentName: "researcher" }));
    expect(result.context).toEqual(["Remember: never expose API keys or credentials in your output."]);
    expect(result.reminders).toEqual(result.context);
  });

  it("a matcher on AgentStart scopes to an agent name", async () => {
    const guardrail = hook({ id: "deployer-guardrail", event: "agent.start", matcher: "deployer", action: { type: "context", text: "You must verify all tests pass before deploying." } });
    expect((await runtime.dispatch([guardrail], event("agent.start", {}, { agentName: "deployer" }))).context).toHaveLength(1);
    expect((await runtime.dispatch([guardrail], event("agent.start", {}, { agentName: "researcher" }))).context).toHaveLength(0);
  });

  it("per-agent hooks apply to that agent only", async () => {
    const preDeploy = hook({ id: "pre-deploy-check", event: "agent.start", scope: "agent:deployer", action: { type: "context", text: "Confirm the target environment." } });
    expect((await runtime.dispatch([preDeploy], event("agent.start", {}, { agentName: "deployer" }))).context).toEqual(["Confirm the target environment."]);
    expect((await runtime.dispatch([preDeploy], event("agent.start", {}, { agentName: "writer" }))).context).toEqual([]);
  });

  it("the error hook sees $ERROR_MSG", async () => {
    const alert = hook({ id: "error-alert", event: "error", action: { type: "command", command: `printf '{"error": "%s"}' "$ERROR_MSG"`, timeoutMs: 5000 } });
    const result = await runtime.dispatch([alert], event("error", { message: "rate limited" }));
    expect(JSON.parse(result.ledger[0].stdout!)).toEqual({ error: "rate limited" });
  });

  it("tool-audit appends $AGENT_NAME used $TOOL_NAME for every tool", async () => {
    const audit = hook({ id: "tool-audit", event: "tool.pre", action: { type: "command", command: `echo "$AGENT_NAME used $TOOL_NAME"` } });
    const result = await runtime.dispatch([audit], toolPre("WebSearch", {}, { agentName: "researcher" }));
    expect(result.ledger[0].stdout).toBe("researcher used WebSearch\n");
  });
});
