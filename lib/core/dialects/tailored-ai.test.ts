import { describe, expect, it } from "vitest";
import type { DialectConfig } from "./index";
import { exportConfig, importConfig } from "./index";
import { readFixture } from "./fixtures/fixture-files";
import { parseError } from "@/test/dialect-harness";

describe("tailored-ai import: the seed's profile and cron job", () => {
  const result = importConfig("tailored-ai", readFixture("tailored-ai/profiles-and-cron.yaml"));

  it("profile hooks: beforeRun → session.start, afterRun → session.end tool actions, fail closed", () => {
    // No maxToolRounds: Tailored AI's default, 10 model calls per run.
    expect(result.agents).toEqual([{ name: "researcher", instructions: "You are a research assistant.", tools: ["web_search", "web_fetch", "memory"], maxTurns: 10 }]);
    expect(result.hooks).toEqual([
      {
        id: "before-run-1",
        dialect: "tailored-ai",
        event: "session.start",
        scope: "agent:researcher",
        action: { type: "tool", tool: "memory", args: { action: "read", file: "research-context.md" } },
        onFailure: "block",
      },
      {
        id: "after-run-1",
        dialect: "tailored-ai",
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
            dialect: "tailored-ai",
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
      dialect: "tailored-ai",
      event: "session.start",
      scope: "agent:nova",
      action: { type: "tool", tool: "memory", args: { action: "read", file: "ops.md" } },
      onFailure: "continue",
    });
  });

  it("agent.pre_tool_use → tool.pre with when.tool as matcher (exact or /regex/)", () => {
    expect(byId("agent:nova", "on-agent-pre-tool-use-1")).toEqual({
      id: "on-agent-pre-tool-use-1",
      dialect: "tailored-ai",
      event: "tool.pre",
      scope: "agent:nova",
      matcher: "exec",
      // denyIf reads the policy tool's output: a match refuses with the output as the reason.
      action: { type: "tool", tool: "policy_check", args: {}, denyIf: "BLOCK" },
      onFailure: "block",
    });
    // Tailored AI tests /^web_/ anywhere in the name: as a whole-name matcher that is web_.*, which fires for web_fetch.
    expect(byId("agent:nova", "on-agent-pre-tool-use-2")).toMatchObject({ matcher: "web_.*", onFailure: "continue" });
    expect(byId("agent:nova", "on-agent-post-tool-use-1")).toMatchObject({ event: "tool.post", action: { tool: "audit" } });
  });

  it("deployment-level hooks.on: when.agent decides the scope, script handlers become commands", () => {
    expect(byId("agent:nova", "on-agent-pre-tool-use-1-2")).toEqual({
      id: "on-agent-pre-tool-use-1-2",
      dialect: "tailored-ai",
      event: "tool.pre",
      scope: "agent:nova",
      matcher: "exec",
      action: { type: "command", command: "./guard.sh" },
      onFailure: "block",
    });
    expect(byId("global", "on-approval-settled-1")).toMatchObject({ event: "approval.settled", action: { tool: "notify_owner" } });
  });

  it("carries denyIf; reports process phases, unknown events (with a suggestion) and other sections", () => {
    const messages = Object.fromEntries(result.warnings.map((w) => [w.path, w.message]));
    expect(messages['agents.nova.hooks.on["agent.pre_tool_use"][0].denyIf']).toBeUndefined();
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

  it("requires a schedule and a prompt on cron jobs", () => {
    const error = parseError(() => importConfig("tailored-ai", "cron:\n  jobs:\n    - name: j\n      agent: a\n"));
    expect(error.issues.map((i) => i.path)).toEqual(["cron.jobs[0].schedule", "cron.jobs[0].prompt"]);
  });
});

describe("tailored-ai import: what the framework allows and means", () => {
  it("a cron job without an agent runs Tailored AI's default agent", () => {
    const result = importConfig(
      "tailored-ai",
      [
        "providers:",
        "  openai: { apiKey: x, defaultModel: gpt-4o-mini }",
        "agent:",
        "  defaultProvider: openai",
        "  extraInstructions: Be brief.",
        "cron:",
        "  jobs:",
        "    - name: digest",
        '      schedule: "0 8 * * *"',
        "      prompt: Summarize yesterday",
        "    - name: again",
        '      schedule: "0 9 * * *"',
        "      prompt: Once more",
      ].join("\n"),
    );
    expect(result.agents).toEqual([
      {
        name: "default",
        description: "Tailored AI's default agent (cron jobs that name none)",
        model: "openai:gpt-4o-mini",
        instructions: "Be brief.",
        tools: ["*"],
        maxTurns: 10,
      },
    ]);
    expect(result.schedules.map((s) => [s.name, s.agent])).toEqual([["digest", "default"], ["again", "default"]]);
    expect(result.warnings.filter((w) => w.path.startsWith("cron"))).toEqual([
      { path: "cron.jobs[0]", message: 'names no agent, so Tailored AI runs its default agent; imported as agent "default" (all tools)' },
      { path: "cron.jobs[1]", message: 'names no agent, so Tailored AI runs its default agent; imported as agent "default" (all tools)' },
    ]);
  });

  it("an agent without tools has all tools; an empty list has none; provider qualifies the model", () => {
    const result = importConfig("tailored-ai", "agents:\n  a: { model: claude-sonnet-4-5, provider: anthropic }\n  b: { tools: [] }\n");
    expect(result.agents).toEqual([
      { name: "a", model: "anthropic:claude-sonnet-4-5", tools: ["*"], maxTurns: 10 },
      { name: "b", tools: [], maxTurns: 10 },
    ]);
    const exported = exportConfig("tailored-ai", { agents: result.agents, hooks: [], schedules: [] }).content;
    expect(exported).toBe("agents:\n  a:\n    model: anthropic:claude-sonnet-4-5\n  b:\n    tools: []\n");
    const { warnings: _w, ...again } = importConfig("tailored-ai", exported);
    expect(again.agents).toEqual(result.agents);
  });

  it("the command handler becomes a command hook speaking Claude Code's protocol, its timeout in the file's milliseconds", () => {
    const source = [
      "agents:",
      "  nova:",
      "    hooks:",
      "      on:",
      "        agent.pre_tool_use:",
      "          - type: command",
      "            options: { command: ./hooks/guard.sh, timeoutMs: 10000 }",
      "            when: { tool: exec }",
    ].join("\n");
    const result = importConfig("tailored-ai", source);
    expect(result.hooks).toEqual([
      {
        id: "on-agent-pre-tool-use-1",
        dialect: "tailored-ai",
        event: "tool.pre",
        scope: "agent:nova",
        matcher: "exec",
        action: { type: "command", command: "./hooks/guard.sh" },
        timeoutMs: 10_000,
        onFailure: "continue",
      },
    ]);
    expect(result.warnings).toEqual([]);
    const tooLong = parseError(() => importConfig("tailored-ai", source.replace("10000", "700000000")));
    expect(tooLong.issues).toEqual([
      { path: 'agents.nova.hooks.on["agent.pre_tool_use"][0].options.timeoutMs', message: "a timeout is more than 0 and at most 604800000 milliseconds (7 days); got 700000000 milliseconds" },
    ]);
  });

  it("a /regex/ tool filter round-trips as the same set of names", () => {
    const source = 'agents:\n  nova:\n    hooks:\n      on:\n        agent.pre_tool_use:\n          - tool: url_guard\n            when: { tool: "/^web_/" }\n';
    const { warnings: _w, ...imported } = importConfig("tailored-ai", source);
    expect(imported.hooks[0].matcher).toBe("web_.*");
    const exported = exportConfig("tailored-ai", imported).content;
    expect(exported).toContain('tool: /^(?:web_.*)$/');
    const { warnings: _w2, ...again } = importConfig("tailored-ai", exported);
    expect(again).toEqual(imported);
  });
});

describe("tailored-ai export", () => {
  const config: DialectConfig = {
    agents: [{ name: "nova", model: "openai:gpt-4o", instructions: "Ops.", tools: ["exec", "memory"], maxTurns: 12 }],
    hooks: [
      { id: "before-run-1", dialect: "tailored-ai", event: "session.start", scope: "agent:nova", action: { type: "tool", tool: "memory", args: { file: "a.md" }, skipIf: "^$" }, onFailure: "block" },
      { id: "before-run-2", dialect: "tailored-ai", event: "session.start", scope: "agent:nova", action: { type: "tool", tool: "inbox", args: {} }, onFailure: "continue" },
      { id: "after-run-1", dialect: "tailored-ai", event: "session.end", scope: "agent:nova", action: { type: "tool", tool: "memory", args: { content: "{{response}}" } }, onFailure: "block" },
      { id: "on-agent-pre-tool-use-1", dialect: "tailored-ai", event: "tool.pre", scope: "agent:nova", matcher: "exec", action: { type: "tool", tool: "policy", args: {} }, onFailure: "block" },
      { id: "on-agent-pre-tool-use-2", dialect: "tailored-ai", event: "tool.pre", scope: "agent:nova", matcher: "web_.*|exec", when: "args.path: /^\\/srv/", action: { type: "command", command: "./guard.sh --strict" }, onFailure: "continue" },
      { id: "on-approval-requested-1", dialect: "tailored-ai", event: "approval.requested", scope: "global", action: { type: "tool", tool: "notify", args: { to: "ops" } }, onFailure: "block" },
    ],
    schedules: [
      {
        name: "nightly",
        agent: "nova",
        cron: "0 2 * * *",
        prompt: "Nightly check",
        enabled: false,
        hooks: [{ id: "after-run-1", dialect: "tailored-ai", event: "session.end", scope: "schedule:nightly", action: { type: "tool", tool: "report", args: {} }, onFailure: "block" }],
      },
    ],
  };

  it("round-trips everything Tailored AI can express", () => {
    const exported = exportConfig("tailored-ai", config);
    expect(exported.warnings).toEqual([]);
    const { warnings, ...again } = importConfig("tailored-ai", exported.content);
    expect(again).toEqual(config);
    expect(warnings.map((w) => w.message)).toEqual([expect.stringMatching(/whole process environment.*TAI_\* variables/)]);
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
        { id: "global-start", dialect: "tailored-ai", event: "session.start", scope: "global", action: { type: "tool", tool: "x" } },
        { id: "cmd-start", dialect: "tailored-ai", event: "session.start", scope: "agent:nova", action: { type: "command", command: "x" } },
        { id: "model", dialect: "tailored-ai", event: "model.post", scope: "agent:nova", action: { type: "tool", tool: "x" } },
        { id: "timed", dialect: "tailored-ai", event: "tool.pre", scope: "agent:nova", action: { type: "tool", tool: "x" }, timeoutMs: 5000, when: "metadata.flag" },
      ],
      schedules: [{ name: "every-hour", agent: "nova", intervalMs: 3_600_000, prompt: "p" }],
    });
    expect(warnings.map((w) => w.path)).toEqual([
      "hooks.global-start.scope",
      "hooks.cmd-start.action",
      "hooks.model.event",
      "hooks.timed.timeoutMs",
      "hooks.timed.when",
      "schedules.every-hour",
    ]);
  });
});

describe("tailored-ai maxToolRounds", () => {
  it("each tool round is one model call: an agent's own limit, else the agent section's, else 10; exported back", () => {
    const source = "agent:\n  maxToolRounds: 25\nagents:\n  own: { maxToolRounds: 4 }\n  inherited: {}\ncron:\n  jobs:\n    - { name: j, schedule: '0 * * * *', prompt: p }\n";
    const result = importConfig("tailored-ai", source);
    expect(result.agents.map((a) => [a.name, a.maxTurns])).toEqual([["own", 4], ["inherited", 25], ["default", 25]]);
    expect(result.warnings.map((w) => w.path)).not.toContain("agents.own.maxToolRounds");
    const exported = exportConfig("tailored-ai", { agents: [{ name: "ten", maxTurns: 10 }, { name: "unset" }, { name: "many", maxTurns: 300 }], hooks: [], schedules: [] });
    // 10 is Tailored AI's own default: left out; Hookplane's default (20) and others are written.
    expect(exported.content).toBe("agents:\n  ten: {}\n  unset:\n    maxToolRounds: 20\n  many:\n    maxToolRounds: 300\n");
    expect(importConfig("tailored-ai", exported.content).agents.map((a) => a.maxTurns)).toEqual([10, 20, 300]);
  });

  it("a corrupt or too large maxToolRounds is refused at its path", () => {
    expect(parseError(() => importConfig("tailored-ai", "agents:\n  a: { maxToolRounds: many }\n")).issues).toEqual([{ path: "agents.a.maxToolRounds", message: expect.any(String) }]);
    expect(parseError(() => importConfig("tailored-ai", "agents:\n  a: { maxToolRounds: 5000 }\n")).issues).toEqual([
      { path: "agents.a.maxToolRounds", message: "a Hookplane agent makes at most 1000 model calls per run; got 5000" },
    ]);
    expect(parseError(() => importConfig("tailored-ai", "agent:\n  maxToolRounds: 0\nagents:\n  a: {}\n")).issues).toEqual([{ path: "agent.maxToolRounds", message: expect.stringContaining("1 or more") }]);
  });
});

describe("tailored-ai denyIf on hooks.on", () => {
  it("carried on a tool hook; on a script handler (which refuses by exit code) it is reported as not enforced, never dropped silently", () => {
    const source = [
      "agents:",
      "  nova:",
      "    hooks:",
      "      on:",
      "        agent.pre_tool_use:",
      "          - tool: policy_check",
      "            denyIf: BLOCK",
      "          - type: script",
      "            options: { command: ./guard.sh }",
      "            denyIf: NO",
    ].join("\n");
    const result = importConfig("tailored-ai", source);
    expect(result.hooks.map((h) => h.action)).toEqual([{ type: "tool", tool: "policy_check", args: {}, denyIf: "BLOCK" }, { type: "command", command: "./guard.sh" }]);
    expect(result.warnings.find((w) => w.path.endsWith("[1].denyIf"))).toEqual({
      path: 'agents.nova.hooks.on["agent.pre_tool_use"][1].denyIf',
      message: expect.stringMatching(/denyIf .* is read on tool hooks only/),
      enforcement: "changed",
    });
    expect(result.warnings.some((w) => w.path.endsWith("[0].denyIf"))).toBe(false);
  });

  it("a denyIf that is no regex is refused at its path", () => {
    const error = parseError(() => importConfig("tailored-ai", "agents:\n  a:\n    hooks:\n      on:\n        agent.pre_tool_use:\n          - tool: t\n            denyIf: '(unclosed'\n"));
    expect(error.issues).toEqual([{ path: 'agents.a.hooks.on["agent.pre_tool_use"][0].denyIf', message: expect.stringMatching(/^invalid regex/) }]);
  });

  it("a denyIf naming detectors, which Tailored AI cannot say, is not exported (the hook would never refuse) and says why; an import of one is refused", () => {
    const { content, warnings } = exportConfig("tailored-ai", {
      agents: [{ name: "nova" }],
      hooks: [
        { id: "no-leak", dialect: "tailored-ai", event: "tool.pre", scope: "agent:nova", action: { type: "tool", tool: "policy_check", args: {}, denyIf: { detects: ["secrets", "pii"] } } },
        { id: "policy", dialect: "tailored-ai", event: "tool.pre", scope: "agent:nova", action: { type: "tool", tool: "policy_check", args: {}, denyIf: "BLOCK" } },
        { id: "start", dialect: "tailored-ai", event: "session.start", scope: "agent:nova", action: { type: "tool", tool: "memory", args: {}, denyIf: { detects: ["pii"] } } },
      ],
      schedules: [],
    });
    expect(warnings).toEqual([
      { path: 'hooks.no-leak["action.denyIf"]', message: "Tailored AI's denyIf is a regex over the tool's output; it cannot name detectors (secrets, pii), so this hook was not exported" },
      { path: 'hooks.start["action.denyIf"]', message: "beforeRun/afterRun hooks cannot refuse (denyIf is read on hooks.on entries); not exported" },
    ]);
    expect(content).toContain("denyIf: BLOCK");
    expect(content).not.toContain("detects");
    const error = parseError(() => importConfig("tailored-ai", "agents:\n  a:\n    hooks:\n      on:\n        agent.pre_tool_use:\n          - tool: t\n            denyIf: { detects: [secrets] }\n"));
    expect(error.issues).toEqual([{ path: 'agents.a.hooks.on["agent.pre_tool_use"][0].denyIf', message: expect.stringMatching(/string/) }]);
  });
});
