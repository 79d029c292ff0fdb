import { describe, expect, it } from "vitest";
import type { DialectConfig } from "./index";
import { exportConfig, importConfig } from "./index";
import { readFixture } from "./fixtures/fixture-files";
import { parseError } from "@/test/dialect-harness";

describe("tailored-ai import: the seed's profile and cron job", () => {
  const result = importConfig("tailored-ai", readFixture("tailored-ai/profiles-and-cron.yaml"));

  it("profile hooks: beforeRun → session.start, afterRun → session.end tool actions, fail closed", () => {
    expect(result.agents).toEqual([{ name: "researcher", instructions: "You are a research assistant.", tools: ["web_search", "web_fetch", "memory"] }]);
    expect(result.hooks).toEqual([
      {
        id: "before-run-1",
        event: "session.start",
        scope: "agent:researcher",
        action: { type: "tool", tool: "memory", args: { action: "read", file: "research-context.md" } },
        onFailure: "block",
      },
      {
        id: "after-run-1",
        event: "session.end",
        scope: "agent:researcher",
        action: { type: "tool", tool: "memory", args: { action: "append", file: "research-log.md", content: "{{response}}" } },
        onFailure: "block",
      },
    ]);
  });

  it("cron job → schedule with its own hooks (schedule scope runs after the agent's)", () => {
    expect(result.schedules).toEqual([
      {
        name: "daily-research",
        agent: "researcher",
        cron: "0 9 * * *",
        prompt: "Research today's AI news",
        hooks: [
          {
            id: "before-run-1",
            event: "session.start",
            scope: "schedule:daily-research",
            action: { type: "tool", tool: "gmail", args: { action: "check", query: "newer_than:1d" }, skipIf: "no new messages" },
            onFailure: "block",
          },
        ],
      },
    ]);
    expect(result.warnings).toEqual([]);
  });
});

describe("tailored-ai import: agents and hooks.on", () => {
  const result = importConfig("tailored-ai", readFixture("tailored-ai/agents-hooks-on.yaml"));
  const byId = (scope: string, id: string) => result.hooks.find((h) => h.scope === scope && h.id === id);

  it("accepts one hook where a list is expected, and onError: continue", () => {
    expect(byId("agent:nova", "before-run-1")).toEqual({
      id: "before-run-1",
      event: "session.start",
      scope: "agent:nova",
      action: { type: "tool", tool: "memory", args: { action: "read", file: "ops.md" } },
      onFailure: "continue",
    });
  });

  it("agent.pre_tool_use → tool.pre with when.tool as matcher (exact or /regex/)", () => {
    expect(byId("agent:nova", "on-agent-pre-tool-use-1")).toEqual({
      id: "on-agent-pre-tool-use-1",
      event: "tool.pre",
      scope: "agent:nova",
      matcher: "exec",
      action: { type: "tool", tool: "policy_check", args: {} },
      onFailure: "block",
    });
    expect(byId("agent:nova", "on-agent-pre-tool-use-2")).toMatchObject({ matcher: "^web_", onFailure: "continue" });
    expect(byId("agent:nova", "on-agent-post-tool-use-1")).toMatchObject({ event: "tool.post", action: { tool: "audit" } });
  });

  it("deployment-level hooks.on: when.agent decides the scope, script handlers become commands", () => {
    expect(byId("agent:nova", "on-agent-pre-tool-use-1-2")).toEqual({
      id: "on-agent-pre-tool-use-1-2",
      event: "tool.pre",
      scope: "agent:nova",
      matcher: "exec",
      action: { type: "command", command: "./guard.sh" },
      onFailure: "block",
    });
    expect(byId("global", "on-approval-settled-1")).toMatchObject({ event: "approval.settled", action: { tool: "notify_owner" } });
  });

  it("reports denyIf, process phases, unknown events (with a suggestion) and other sections", () => {
    const messages = Object.fromEntries(result.warnings.map((w) => [w.path, w.message]));
    expect(messages['agents.nova.hooks.on["agent.pre_tool_use"][0].denyIf']).toMatch(/will not refuse/);
    expect(messages['hooks.on["tai:init:start"]']).toMatch(/not of a run/);
    expect(messages['hooks.on["agent.pre_tool_uses"]']).toMatch(/did you mean "agent.pre_tool_use"/);
    expect(messages.server).toMatch(/not about agents or hooks/);
  });
});

describe("tailored-ai import: malformed input", () => {
  it("names the path of bad values", () => {
    const error = parseError(() =>
      importConfig("tailored-ai", "agents:\n  a:\n    hooks:\n      beforeRun:\n        - tool: x\n          onError: ignore\n      on:\n        agent.pre_tool_use:\n          - when: { tool: exec }\n"),
    );
    expect(error.issues).toEqual([
      { path: "agents.a.hooks.beforeRun[0].onError", message: 'expected abort or continue, got "ignore"' },
      { path: 'agents.a.hooks.on["agent.pre_tool_use"][0]', message: expect.stringContaining("needs a `tool:` name") },
    ]);
  });

  it("requires a schedule, prompt and agent on cron jobs", () => {
    const error = parseError(() => importConfig("tailored-ai", "cron:\n  jobs:\n    - name: j\n      prompt: p\n"));
    expect(error.issues.map((i) => i.path)).toEqual(["cron.jobs[0].schedule", "cron.jobs[0].agent"]);
  });
});

describe("tailored-ai export", () => {
  const config: DialectConfig = {
    agents: [{ name: "nova", model: "openai:gpt-4o", instructions: "Ops.", tools: ["exec", "memory"] }],
    hooks: [
      { id: "before-run-1", event: "session.start", scope: "agent:nova", action: { type: "tool", tool: "memory", args: { file: "a.md" }, skipIf: "^$" }, onFailure: "block" },
      { id: "before-run-2", event: "session.start", scope: "agent:nova", action: { type: "tool", tool: "inbox", args: {} }, onFailure: "continue" },
      { id: "after-run-1", event: "session.end", scope: "agent:nova", action: { type: "tool", tool: "memory", args: { content: "{{response}}" } }, onFailure: "block" },
      { id: "on-agent-pre-tool-use-1", event: "tool.pre", scope: "agent:nova", matcher: "exec", action: { type: "tool", tool: "policy", args: {} }, onFailure: "block" },
      { id: "on-agent-pre-tool-use-2", event: "tool.pre", scope: "agent:nova", matcher: "web_.*|exec", when: "args.path: /^\\/srv/", action: { type: "command", command: "./guard.sh --strict" }, onFailure: "continue" },
      { id: "on-approval-requested-1", event: "approval.requested", scope: "global", action: { type: "tool", tool: "notify", args: { to: "ops" } }, onFailure: "block" },
    ],
    schedules: [
      {
        name: "nightly",
        agent: "nova",
        cron: "0 2 * * *",
        prompt: "Nightly check",
        enabled: false,
        hooks: [{ id: "after-run-1", event: "session.end", scope: "schedule:nightly", action: { type: "tool", tool: "report", args: {} }, onFailure: "block" }],
      },
    ],
  };

  it("round-trips everything Tailored AI can express", () => {
    const exported = exportConfig("tailored-ai", config);
    expect(exported.warnings).toEqual([]);
    const { warnings, ...again } = importConfig("tailored-ai", exported.content);
    expect(again).toEqual(config);
    expect(warnings.map((w) => w.message)).toEqual([expect.stringMatching(/TAI_\* environment/)]);
  });

  it("round-trips the seed's profile and cron job (written with the newer agents key)", () => {
    const { warnings: _w, ...imported } = importConfig("tailored-ai", readFixture("tailored-ai/profiles-and-cron.yaml"));
    const exported = exportConfig("tailored-ai", imported);
    expect(exported.content).toMatch(/^agents:/);
    const { warnings: _w2, ...again } = importConfig("tailored-ai", exported.content);
    expect(again).toEqual(imported);
  });

  it("warns about what Tailored AI cannot express", () => {
    const { warnings } = exportConfig("tailored-ai", {
      agents: [{ name: "nova", maxTurns: 5 }],
      hooks: [
        { id: "global-start", event: "session.start", scope: "global", action: { type: "tool", tool: "x" } },
        { id: "cmd-start", event: "session.start", scope: "agent:nova", action: { type: "command", command: "x" } },
        { id: "model", event: "model.post", scope: "agent:nova", action: { type: "tool", tool: "x" } },
        { id: "timed", event: "tool.pre", scope: "agent:nova", action: { type: "tool", tool: "x" }, timeoutMs: 5000, when: "metadata.flag" },
      ],
      schedules: [{ name: "every-hour", agent: "nova", intervalMs: 3_600_000, prompt: "p" }],
    });
    expect(warnings.map((w) => w.path)).toEqual([
      "agents.nova.maxTurns",
      "hooks.global-start.scope",
      "hooks.cmd-start.action",
      "hooks.model.event",
      "hooks.timed.timeoutMs",
      "hooks.timed.when",
      "schedules.every-hour",
    ]);
  });
});
