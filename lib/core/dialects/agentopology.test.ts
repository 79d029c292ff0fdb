import { describe, expect, it } from "vitest";
import { detectDialect, importConfig } from "./index";
import { readFixture } from "./fixtures/fixture-files";
import { parseError } from "@/test/dialect-harness";

const at = (file: string, agent?: string) => importConfig("agentopology", readFixture(`agentopology/${file}`), agent ? { agent } : {});

describe("agentopology import: the seed's examples", () => {
  it("basic syntax: a topology-wide command hook on AgentStart", () => {
    expect(at("basic.at").hooks).toEqual([
      {
        id: "log-start",
        dialect: "agentopology",
        name: "log-start",
        event: "agent.start",
        scope: "global",
        action: { type: "command", command: "echo 'Agent started: $AGENT_NAME'" },
        onFailure: "continue",
      },
    ]);
  });

  it("a bare timeout below 1000 is read as seconds, with a warning saying so", () => {
    const result = at("command-hooks.at");
    expect(result.hooks[0]).toMatchObject({ id: "notify-completion", dialect: "agentopology", event: "agent.stop", timeoutMs: 10_000 });
    expect(result.hooks[0].action).toEqual({ type: "command", command: `curl -X POST https://slack.webhook/notify -d '{"agent": "$AGENT_NAME"}'` });
    expect(result.warnings).toEqual([{ path: "hooks.notify-completion.timeout", message: expect.stringMatching(/no unit; read as seconds \(10s = 10000 ms\)/) }]);
  });

  it("type: prompt → a context action with the run text", () => {
    expect(at("prompt-hooks.at").hooks[0]).toEqual({
      id: "safety-reminder",
      dialect: "agentopology",
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
    expect(result.agents).toEqual([{ name: "deployer", model: "anthropic:claude-opus-4-1", tools: ["Bash"], maxTurns: 1000 }]);
    expect(result.hooks).toEqual([
      {
        id: "pre-deploy-check",
        dialect: "agentopology",
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
      { name: "researcher", model: "anthropic:claude-sonnet-4-5", tools: ["WebSearch", "Read"], maxTurns: 1000 },
      { name: "writer", model: "anthropic:claude-sonnet-4-5", tools: ["Write"], maxTurns: 1000 },
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
      { id: "archive", dialect: "agentopology", name: "archive", event: "session.end", scope: "global", action: { type: "command", command: "./archive.sh" }, timeoutMs: 120_000, onFailure: "continue" },
      {
        id: "lint-gate",
        dialect: "agentopology",
        name: "lint-gate",
        event: "tool.pre",
        scope: "agent:builder",
        matcher: "Bash",
        action: { type: "command", command: "./lint.sh" },
        timeoutMs: 500,
        onFailure: "continue",
      },
    ]);
    expect(result.warnings.map((w) => w.path)).toEqual(["topology.release.agent.builder.model", "topology.release.agent.builder"]);
  });
});

describe("agentopology import: malformed input", () => {
  it("names the line of a syntax error", () => {
    const error = parseError(() => importConfig("agentopology", 'hooks {\n  a {\n    on: ToolUse\n    run: "x"\n  }\n'));
    expect(error.issues[0]).toMatchObject({ line: 6, message: expect.stringMatching(/a `}` is missing for the block opened on line 1/) });
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
    const result = importConfig("agentopology", 'hooks {\n  hook h {\n    on: PreToolUze\n    run: "x"\n  }\n}');
    expect(result.hooks).toEqual([]);
    expect(result.warnings[0]).toEqual({ path: "hooks.h.on", message: expect.stringContaining('did you mean "PreToolUse"'), enforcement: "not_imported" });
  });
});

describe("agentopology import: the grammar as the spec and AgenTopology's parser take it", () => {
  it("typed maps, raw prompt text, Claude Code event names, bare ms timeouts, comments, multi-line lists", () => {
    const result = at("spec-grammar.at");
    expect(result.agents).toEqual([
      {
        name: "classifier",
        model: "anthropic:claude-sonnet-4-5",
        tools: ["Read", "Grep", "mcp__tracker__search"],
        instructions:
          'You classify incidents (P0-P3) — severity first, then ownership.\nNever guess: if unsure, say "unknown" {and stop}.\n# Output format\n- one line per finding',
        maxTurns: 1000,
      },
      { name: "router", tools: ["*"], maxTurns: 1000 },
    ]);
    expect(result.hooks).toEqual([
      {
        id: "guard-bash",
        dialect: "agentopology",
        name: "guard-bash",
        event: "tool.pre",
        scope: "agent:classifier",
        matcher: "Bash",
        action: { type: "command", command: "scripts/guard.sh" },
        timeoutMs: 5000,
        onFailure: "continue",
      },
      {
        id: "audit",
        dialect: "agentopology",
        name: "audit",
        event: "tool.post",
        scope: "global",
        matcher: "Write|Edit",
        action: { type: "command", command: "scripts/audit.sh" },
        timeoutMs: 30_000,
        onFailure: "continue",
      },
      { id: "keep-going", dialect: "agentopology", name: "keep-going", event: "turn.end", scope: "global", action: { type: "command", command: "scripts/tests-pass.sh" }, onFailure: "continue" },
      {
        id: "agent-done",
        dialect: "agentopology",
        name: "agent-done",
        event: "agent.stop",
        scope: "global",
        matcher: "classifier",
        action: { type: "command", command: "scripts/log-agent.sh" },
        onFailure: "continue",
      },
    ]);
    expect(result.warnings).toEqual([
      { path: "line", message: '"import reviewer from ./shared-agents.at" has no Hookplane equivalent; ignored (line 3)' },
      { path: "topology.triage-desk.meta", message: '"meta" block has no Hookplane equivalent; ignored (line 6)' },
      { path: "topology.triage-desk.agent.classifier.model", message: 'model alias "sonnet" imported as "anthropic:claude-sonnet-4-5"' },
      { path: "topology.triage-desk.agent.classifier.permissions", message: 'agent field "permissions" has no Hookplane equivalent; ignored (line 13)' },
      { path: "topology.triage-desk.agent.classifier.outputs", message: 'agent field "outputs" has no Hookplane equivalent; ignored (line 19)' },
      { path: "topology.triage-desk.agent.classifier.rate-limit", message: 'agent field "rate-limit" has no Hookplane equivalent; ignored (line 20)' },
      { path: "topology.triage-desk.agent.classifier", message: expect.stringContaining("no max-turns: AgenTopology's bindings set no turn limit") },
      { path: "topology.triage-desk.agent.classifier.hooks.guard-bash.timeout", message: expect.stringContaining("timeout 5000 has no unit; read as milliseconds (5000ms)") },
      { path: "topology.triage-desk.agent.router.model", message: expect.stringContaining("model inherit") },
      { path: "topology.triage-desk.agent.router", message: expect.stringContaining("gets the highest, 1000 model calls per run") },
      { path: "topology.triage-desk.agent.router.outputs", message: '"outputs" block has no Hookplane equivalent; ignored (line 40)' },
      { path: "topology.triage-desk.flow", message: expect.stringContaining("only a single chain") },
      { path: "topology.triage-desk.hooks.agent-done.extensions", message: '"extensions" block in a hook has no Hookplane equivalent; ignored (line 64)' },
    ]);
  });

  it("a fragment's hooks are imported like a topology's", () => {
    expect(at("fragment.at").hooks).toEqual([
      {
        id: "audit-log",
        dialect: "agentopology",
        name: "audit-log",
        event: "agent.stop",
        scope: "global",
        matcher: "*",
        action: { type: "command", command: "scripts/audit.sh" },
        onFailure: "continue",
      },
    ]);
  });

  it("a flow through steps that are not agents is reported, not turned into a broken flow agent", () => {
    const result = importConfig("agentopology", "topology t : [pipeline] {\n  agent worker { model: haiku }\n  flow {\n    intake -> worker -> done\n  }\n}");
    expect(result.agents.map((a) => a.name)).toEqual(["worker"]);
    expect(result.warnings.at(-1)).toEqual({ path: "topology.t.flow", message: expect.stringContaining('"intake", "done" are not agents') });
  });

  it("a raw block may hold any text; only its braces must balance", () => {
    const source = 'agent a {\n  prompt {\n    Use f(x) — or "g" (maybe); cost: $5 # not a comment here\n  }\n}';
    expect(importConfig("agentopology", source).agents).toEqual([{ name: "a", tools: ["*"], instructions: 'Use f(x) — or "g" (maybe); cost: $5 # not a comment here', maxTurns: 1000 }]);
    const unbalanced = parseError(() => importConfig("agentopology", "agent a {\n  prompt {\n    text {\n  }\n}"));
    expect(unbalanced.issues[0].message).toMatch(/a `}` is missing for the block opened on line 1/);
  });

  it("every event name of the spec maps, and a file using them is detected as AgenTopology", () => {
    const events = ["SessionStart", "SessionEnd", "AgentStart", "AgentStop", "ToolUse", "Error", "PreToolUse", "PostToolUse", "SubagentStart", "SubagentStop", "Stop", "UserPromptSubmit"];
    const source = `hooks {\n${events.map((e, i) => `  hook h${i} {\n    on: ${e}\n    run: "x"\n  }`).join("\n")}\n}`;
    expect(importConfig("agentopology", source).hooks.map((h) => h.event)).toEqual([
      "session.start", "session.end", "agent.start", "agent.stop", "tool.pre", "error", "tool.pre", "tool.post", "agent.start", "agent.stop", "turn.end", "user.prompt.submit",
    ]);
    expect(detectDialect('hooks {\n  hook g {\n    on: PreToolUse\n    run: "x"\n  }\n}')).toMatchObject({ dialect: "agentopology", confidence: 0.95 });
    expect(detectDialect('fragment f {\n  meta { version: "1" }\n}')).toMatchObject({ dialect: "agentopology" });
  });
});

describe("agentopology import: gates", () => {
  const source = `topology ship : [pipeline] {
  agent builder { model: haiku }
  agent deployer { model: haiku }
  flow {
    builder -> deployer
  }
  gates {
    gate validation {
      after: builder
      before: deployer
      run: "scripts/validate.sh"
      checks: [typecheck, lint]
      retry: 3
      on-fail: bounce-back
      timeout: 2m
    }
    gate security-scan {
      after: builder
      run: "scripts/security-scan.sh"
      behavior: advisory
    }
    gate sign-off {
      after: intake
      run: "scripts/sign-off.sh"
    }
  }
}`;

  it("a blocking gate after an agent is a blocking agent.stop hook on that agent; advisory and non-agent gates are reported", () => {
    const result = importConfig("agentopology", source);
    expect(result.hooks).toEqual([
      {
        id: "gate-validation",
        dialect: "agentopology",
        name: "gate validation",
        event: "agent.stop",
        scope: "global",
        matcher: "builder",
        action: { type: "command", command: "scripts/validate.sh" },
        timeoutMs: 120_000,
        onFailure: "block",
      },
    ]);
    expect(result.agents.at(-1)).toEqual({ name: "ship", description: "Flow of topology ship", flow: ["builder", "deployer"] });
    const gateWarnings = result.warnings.filter((w) => w.path.startsWith("topology.ship.gates"));
    expect(gateWarnings.map((w) => w.path)).toEqual([
      "topology.ship.gates.validation.retry",
      "topology.ship.gates.validation.checks",
      "topology.ship.gates.validation.before",
      "topology.ship.gates.security-scan",
      "topology.ship.gates.sign-off",
    ]);
    expect(gateWarnings[3].message).toMatch(/advisory gate is not enforced/);
    expect(gateWarnings[4].message).toMatch(/"intake", which is not an agent/);
  });
});

describe("agentopology import: timeouts beyond Hookplane's limit", () => {
  it("are refused with the limit in the unit the file used", () => {
    const hook = (timeout: string) => `hooks {\n  hook h {\n    on: ToolUse\n    run: "x"\n    timeout: ${timeout}\n  }\n}`;
    expect(parseError(() => importConfig("agentopology", hook("700000s"))).issues).toEqual([
      { path: "hooks.h.timeout", message: "a timeout is more than 0 and at most 604800 seconds (7 days); got 700000 seconds" },
    ]);
    expect(parseError(() => importConfig("agentopology", hook("700000000"))).issues).toEqual([
      { path: "hooks.h.timeout", message: "a timeout is more than 0 and at most 604800000 milliseconds (7 days); got 700000000 milliseconds" },
    ]);
  });
});

describe("agentopology: findings from real files", () => {
  it("a hook whose on: is a list is a corrupt file: refused once, with its path and line", () => {
    const source = 'topology t : [pipeline] {\n  hooks {\n    hook both {\n      on: [PreToolUse, PostToolUse]\n      run: "./audit.sh"\n    }\n  }\n}\n';
    expect(parseError(() => importConfig("agentopology", source)).issues).toEqual([{ path: "topology.t.hooks.both.on", message: "expected a single value, got a list (line 4)" }]);
    // A hook without on (or without run) is still refused as missing.
    expect(parseError(() => importConfig("agentopology", 'hooks {\n  hook h {\n    run: "x"\n  }\n}\n')).issues).toEqual([{ path: "hooks.h.on", message: 'is required (hook "h", line 2)' }]);
  });

  it("max-turns is the agent's maxTurns; without it the agent has no limit there, so Hookplane's highest (warned); a corrupt one is refused at its path", () => {
    const result = importConfig("agentopology", "agent a {\n  max-turns: 12\n}\nagent b {\n  model: opus\n}\n");
    expect(result.agents.map((a) => [a.name, a.maxTurns])).toEqual([["a", 12], ["b", 1000]]);
    expect(result.warnings.map((w) => w.path)).toEqual(["agent.b.model", "agent.b"]);
    expect(parseError(() => importConfig("agentopology", "agent a {\n  max-turns: ten\n}\n")).issues).toEqual([
      { path: "agent.a.max-turns", message: 'expected a whole number of turns (1 or more), got "ten" (line 2)' },
    ]);
    expect(parseError(() => importConfig("agentopology", "agent a {\n  max-turns: 2000\n}\n")).issues).toEqual([
      { path: "agent.a.max-turns", message: "a Hookplane agent makes at most 1000 model calls per run; got 2000 (line 2)" },
    ]);
  });
});
