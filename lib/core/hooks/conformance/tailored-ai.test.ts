/**
 * Tailored AI's profile and cron hooks as canonical specs: `beforeRun` = session.start,
 * `afterRun` = session.end, each `{tool, args, skipIf}` = a `tool` action; profile hooks are
 * agent-scoped and cron job hooks schedule-scoped, so job hooks run after profile hooks.
 * `onError` defaults to abort (fail closed). The runtime-event surface `hooks.on` has `when`
 * (`field: /regex/`) and `denyIf`.
 */
import { describe, expect, it } from "vitest";
import { createHookRuntime } from "../runtime";
import type { ToolPort } from "../ports";
import { event, hook, toolPre } from "../testing/fakes";

interface Call {
  name: string;
  args: Record<string, unknown>;
}

function tools(outputs: Record<string, string>): ToolPort & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    call: async (name, args) => {
      calls.push({ name, args });
      if (!(name in outputs)) return { output: `unknown tool ${name}`, isError: true };
      return { output: outputs[name] };
    },
  };
}

const agent = { agentName: "researcher", scheduleId: "daily-research" };
const cronVars = { last_run: "2024-01-14T09:00:00Z", last_run_epoch: "1705222800", last_response: "yesterday's digest", next_task: "summarize" };

// profiles.researcher.hooks
const profileBefore = hook({ id: "read-context", event: "session.start", scope: "agent:researcher", action: { type: "tool", tool: "memory", args: { action: "read", file: "research-context.md" } } });
const profileAfter = hook({
  id: "append-log",
  event: "session.end",
  scope: "agent:researcher",
  action: { type: "tool", tool: "memory", args: { action: "append", file: "research-log.md", content: "{{response}}" } },
});
// cron.jobs[daily-research].hooks
const jobBefore = hook({
  id: "check-gmail",
  event: "session.start",
  scope: "schedule:daily-research",
  action: { type: "tool", tool: "gmail", args: { action: "check", query: "newer_than:1d" }, skipIf: "no new messages" },
});

describe("Tailored AI conformance", () => {
  it("job hooks run after profile hooks; outputs are handed back for the prompt", async () => {
    const port = tools({ memory: "context: AI news sources", gmail: "3 new messages" });
    const result = await createHookRuntime({ tools: port }).dispatch([jobBefore, profileBefore], event("session.start", { prompt: "Research today's AI news" }, { ...agent, vars: cronVars }));
    expect(port.calls.map((c) => c.name)).toEqual(["memory", "gmail"]);
    expect(result.verdict).toBe("allow");
    expect(result.output).toBe("context: AI news sources\n\n3 new messages");
  });

  it("skipIf matching the output skips the remaining hooks and the agent loop", async () => {
    const port = tools({ gmail: "no new messages", memory: "ctx" });
    const later = hook({ id: "later", event: "session.start", scope: "schedule:daily-research", action: { type: "tool", tool: "memory", args: {} } });
    const result = await createHookRuntime({ tools: port }).dispatch([jobBefore, later], event("session.start", {}, agent));
    expect(result).toMatchObject({ verdict: "skip", blockedBy: "check-gmail", reason: "skipIf /no new messages/ matched the output of gmail" });
    expect(result.ledger[1]).toMatchObject({ matched: false, reason: "not run: hook check-gmail skipped the remaining hooks" });
    expect(port.calls).toHaveLength(1);
  });

  it("{{response}} carries the agent's final answer after the loop", async () => {
    const port = tools({ memory: "" });
    await createHookRuntime({ tools: port }).dispatch([profileAfter], event("session.end", { outcome: "completed", response: "Five stories today." }, agent));
    expect(port.calls[0].args).toEqual({ action: "append", file: "research-log.md", content: "Five stories today." });
  });

  it("cron template variables reach the args", async () => {
    const port = tools({ memory: "" });
    const h = hook({
      id: "since",
      event: "session.start",
      scope: "schedule:daily-research",
      action: { type: "tool", tool: "memory", args: { q: "since {{last_run}} ({{last_run_epoch}}), then {{next_task}}; last: {{last_response}}" } },
    });
    await createHookRuntime({ tools: port }).dispatch([h], event("session.start", {}, { ...agent, vars: cronVars }));
    expect(port.calls[0].args.q).toBe("since 2024-01-14T09:00:00Z (1705222800), then summarize; last: yesterday's digest");
  });

  it("afterRun skipIf skips the remaining afterRun hooks", async () => {
    const port = tools({ check: "nothing to do", memory: "" });
    const first = hook({ id: "check", event: "session.end", action: { type: "tool", tool: "check", args: {}, skipIf: "^nothing" } });
    const result = await createHookRuntime({ tools: port }).dispatch([first, profileAfter], event("session.end", { outcome: "completed" }, agent));
    expect(result.verdict).toBe("skip");
    expect(port.calls.map((c) => c.name)).toEqual(["check"]);
  });

  it("onError: abort (the default) stops the run when a beforeRun tool fails", async () => {
    const port = tools({});
    const result = await createHookRuntime({ tools: port }).dispatch([profileBefore], event("session.start", {}, agent));
    expect(result).toMatchObject({ verdict: "block", reason: "tool memory failed: unknown tool memory" });
  });

  it("hooks.on agent.pre_tool_use: when field: /regex/ plus denyIf", async () => {
    const guard = hook({ id: "no-force-push", event: "tool.pre", when: "toolName: /^(shell|exec)$/", action: { type: "block", reason: "no force pushes", denyIf: "push\\s+(-f|--force)" } });
    const rt = createHookRuntime();
    expect((await rt.dispatch([guard], toolPre("shell", { command: "git push --force" }))).verdict).toBe("block");
    expect((await rt.dispatch([guard], toolPre("shell", { command: "git push" }))).verdict).toBe("allow");
    expect((await rt.dispatch([guard], toolPre("write", { command: "git push -f" }))).ledger[0].reason).toBe("when toolName did not match /^(shell|exec)$/");
  });

  it("agent-scoped hooks of another profile do not run", async () => {
    const port = tools({ memory: "" });
    const result = await createHookRuntime({ tools: port }).dispatch([profileBefore], event("session.start", {}, { agentName: "writer" }));
    expect(port.calls).toHaveLength(0);
    expect(result.ledger[0].reason).toBe("scope agent:researcher does not apply to agent writer");
  });
});
