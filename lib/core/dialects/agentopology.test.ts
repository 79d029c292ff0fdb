import { describe, expect, it } from "vitest";
import { importConfig } from "./index";
import { readFixture } from "./fixtures/fixture-files";
import { parseError } from "@/test/dialect-harness";

const at = (file: string, agent?: string) => importConfig("agentopology", readFixture(`agentopology/${file}`), agent ? { agent } : {});

describe("agentopology import: the seed's examples", () => {
  it("basic syntax: a topology-wide command hook on AgentStart", () => {
    expect(at("basic.at").hooks).toEqual([
      {
        id: "log-start",
        name: "log-start",
        event: "agent.start",
        scope: "global",
        action: { type: "command", command: "echo 'Agent started: $AGENT_NAME'" },
        onFailure: "continue",
      },
    ]);
  });

  it("a bare timeout is read as seconds, with a warning saying so", () => {
    const result = at("command-hooks.at");
    expect(result.hooks[0]).toMatchObject({ id: "notify-completion", event: "agent.stop", timeoutMs: 10_000 });
    expect(result.hooks[0].action).toEqual({ type: "command", command: `curl -X POST https://slack.webhook/notify -d '{"agent": "$AGENT_NAME"}'` });
    expect(result.warnings).toEqual([{ path: "hooks.notify-completion.timeout", message: expect.stringMatching(/no unit; assumed seconds/) }]);
  });

  it("type: prompt → a context action with the run text", () => {
    expect(at("prompt-hooks.at").hooks[0]).toEqual({
      id: "safety-reminder",
      name: "safety-reminder",
      event: "agent.start",
      scope: "global",
      action: { type: "context", text: "Remember: never expose API keys or credentials in your output." },
      onFailure: "continue",
    });
  });

  it("matcher is kept for tools and for agents", () => {
    expect(at("matcher.at", "pipeline").hooks.map((h) => [h.id, h.event, h.scope, h.matcher, h.action.type])).toEqual([
      ["log-writes", "tool.pre", "agent:pipeline", "Write", "command"],
      ["deployer-guardrail", "agent.start", "agent:pipeline", "deployer", "context"],
    ]);
  });

  it("per-agent hooks are scoped to their agent; the agent comes along", () => {
    const result = at("per-agent.at");
    expect(result.agents).toEqual([{ name: "deployer", model: "anthropic:claude-opus-4-1", tools: ["Bash"] }]);
    expect(result.hooks).toEqual([
      {
        id: "pre-deploy-check",
        name: "pre-deploy-check",
        event: "agent.start",
        scope: "agent:deployer",
        action: { type: "context", text: "Confirm the target environment before running any commands." },
        onFailure: "continue",
      },
    ]);
  });

  it("the full example: agents, a linear flow, SessionStart/ToolUse/Error hooks", () => {
    const result = at("full-example.at");
    expect(result.agents).toEqual([
      { name: "researcher", model: "anthropic:claude-sonnet-4-5", tools: ["WebSearch", "Read"] },
      { name: "writer", model: "anthropic:claude-sonnet-4-5", tools: ["Write"] },
      { name: "monitored-pipeline", description: "Flow of topology monitored-pipeline", flow: ["researcher", "writer"] },
    ]);
    expect(result.hooks.map((h) => [h.id, h.event, h.timeoutMs])).toEqual([
      ["session-log", "session.start", undefined],
      ["tool-audit", "tool.pre", undefined],
      ["error-alert", "error", 5000],
    ]);
    expect(result.hooks[1].action).toEqual({ type: "command", command: "echo '$AGENT_NAME used $TOOL_NAME' >> audit.log" });
  });

  it("the grammar's `hook name {}` form, explicit units, SessionEnd", () => {
    const result = at("hook-grammar.at");
    expect(result.hooks).toEqual([
      { id: "archive", name: "archive", event: "session.end", scope: "global", action: { type: "command", command: "./archive.sh" }, timeoutMs: 120_000, onFailure: "continue" },
      {
        id: "lint-gate",
        name: "lint-gate",
        event: "tool.pre",
        scope: "agent:builder",
        matcher: "Bash",
        action: { type: "command", command: "./lint.sh" },
        timeoutMs: 500,
        onFailure: "continue",
      },
    ]);
    expect(result.warnings.map((w) => w.path)).toEqual(["topology.release.agent.builder.model"]);
  });
});

describe("agentopology import: malformed input", () => {
  it("names the line of a syntax error", () => {
    const error = parseError(() => importConfig("agentopology", 'hooks {\n  a {\n    on: ToolUse\n    run: "x"\n  }\n'));
    expect(error.issues[0]).toMatchObject({ line: 5, message: expect.stringMatching(/a `}` is missing/) });
    const unterminated = parseError(() => importConfig("agentopology", 'hooks {\n  a {\n    run: "x\n  }\n}'));
    expect(unterminated.issues[0]).toMatchObject({ line: 3, message: expect.stringMatching(/unterminated string/) });
  });

  it("names the path of missing fields and bad timeouts", () => {
    const error = parseError(() => importConfig("agentopology", 'agent a {\n  hooks {\n    h {\n      run: "x"\n      timeout: soon\n    }\n  }\n}'));
    expect(error.issues).toEqual([
      { path: "agent.a.hooks.h.on", message: 'is required (hook "h", line 3)' },
      { path: "agent.a.hooks.h.timeout", message: expect.stringContaining('"soon" is not a timeout') },
    ]);
  });

  it("suggests the nearest event for an unknown one", () => {
    const result = importConfig("agentopology", 'hooks {\n  h {\n    on: PreToolUse\n    run: "x"\n  }\n}');
    expect(result.hooks).toEqual([]);
    expect(result.warnings[0]).toEqual({ path: "hooks.h.on", message: expect.stringContaining('did you mean "ToolUse"') });
  });
});
