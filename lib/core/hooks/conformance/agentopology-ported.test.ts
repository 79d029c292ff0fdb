/**
 * AgenTopology's own parser and binding tests, ported case by case (agentopology/agentopology at
 * 20a3a13: src/parser/__tests__/parser.test.ts and src/bindings/__tests__/bindings.test.ts, the
 * claude-code, gemini-cli and cursor bindings). Each scenario is written anew: the `.at` text goes
 * through `importConfig("agentopology", …)` (so the hooks carry AgenTopology's runtime contract:
 * Claude Code's stdin, exit 2 blocks) and, where the upstream test is about what a hook does, runs
 * through `createHookRuntime().dispatch`. Upstream parses to an AST or scaffolds a binding's files;
 * the Hookplane equivalent of "parses X" is "imports X as this hook", and of "the binding wires X"
 * is "X fires (or blocks) at that moment". Titles cite `<file> › <describe> › <test name>`; where
 * Hookplane deliberately differs, the test asserts the difference docs/dialect-semantics.md explains.
 */
import { describe, expect, it } from "vitest";
import { DialectParseError, importConfig } from "@/lib/core/dialects";
import type { ImportResult } from "@/lib/core/dialects/types";
import { createHookRuntime } from "../runtime";
import type { RuntimeHook } from "../runtime-types";
import { hookSpecSchema } from "../spec";
import { event, toolPre } from "../testing/fakes";

const runtime = createHookRuntime({ allowCodeExecution: true });

const load = (source: string): ImportResult => importConfig("agentopology", source);
const runnable = (result: ImportResult): RuntimeHook[] => result.hooks.map((h) => hookSpecSchema.parse(h));
/** The imported hooks with `run` replaced by a command this machine can run (the scripts are the user's). */
const withCommand = (result: ImportResult, command: string): RuntimeHook[] =>
  runnable(result).map((h) => (h.action.type === "command" ? { ...h, action: { ...h.action, command } } : h));
const warningPaths = (result: ImportResult) => result.warnings.map((w) => w.path);
const stopOf = (agentName: string) => event("agent.stop", {}, { agentName });
function importIssues(source: string): string[] {
  try {
    load(source);
  } catch (error) {
    if (error instanceof DialectParseError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

/** The header every parser test uses: an orchestrator and an action (both reported, not imported). */
const HEAD = `  orchestrator { model: opus handles: [a] }\n  action a { kind: inline }`;

describe("AgenTopology src/parser/__tests__/parser.test.ts", () => {
  it("parser › Parser sections › agent › parses per-agent hooks block", async () => {
    const result = load(`topology t : [pipeline] {
${HEAD}
  agent hooked {
    model: opus
    hooks {
      hook pre-tool {
        on: PreToolUse
        matcher: "Bash"
        run: "scripts/check.sh"
        type: command
        timeout: 5000
      }
    }
  }
  flow { a -> hooked }
}`);
    expect(result.hooks).toEqual([
      expect.objectContaining({
        name: "pre-tool",
        dialect: "agentopology",
        event: "tool.pre",
        scope: "agent:hooked",
        matcher: "Bash",
        action: { type: "command", command: "scripts/check.sh" },
        timeoutMs: 5000,
        onFailure: "continue",
      }),
    ]);
    expect(result.agents.map((a) => a.name)).toEqual(["hooked"]);
    // The hook fires for Bash by `hooked`, never for another tool or another agent.
    const hooks = withCommand(result, `echo "checked $TOOL_NAME for $AGENT_NAME"`);
    const fired = await runtime.dispatch(hooks, toolPre("Bash", { command: "ls" }, { agentName: "hooked" }));
    expect(fired.ledger).toEqual([expect.objectContaining({ matched: true, stdout: "checked Bash for hooked\n" })]);
    expect((await runtime.dispatch(hooks, toolPre("Read", {}, { agentName: "hooked" }))).ledger[0]?.matched ?? false).toBe(false);
    expect((await runtime.dispatch(hooks, toolPre("Bash", {}, { agentName: "writer" }))).ledger.some((l) => l.matched)).toBe(false);
  });

  it("parser › Parser sections › hooks › parses hooks with on, run, type, matcher, timeout (and exit 2 blocks the tool)", async () => {
    const result = load(`topology t : [pipeline] {
${HEAD}
  flow { a -> a }
  hooks {
    hook my-hook {
      on: PreToolUse
      matcher: "Bash"
      run: "scripts/guard.sh"
      type: command
      timeout: 3000
    }
  }
}`);
    expect(result.hooks).toEqual([
      expect.objectContaining({ name: "my-hook", event: "tool.pre", scope: "global", matcher: "Bash", action: { type: "command", command: "scripts/guard.sh" }, timeoutMs: 3000 }),
    ]);
    expect(result.warnings.find((w) => w.path.endsWith("my-hook.timeout"))?.message).toMatch(/read as milliseconds/);
    // A guard as the claude-code binding runs it: Claude Code's stdin, exit 2 + stderr blocks.
    const guard = withCommand(result, `grep -q '"command":"rm -rf /"' && { echo "rm -rf refused" >&2; exit 2; }; exit 0`);
    const blocked = await runtime.dispatch(guard, toolPre("Bash", { command: "rm -rf /" }));
    expect(blocked).toMatchObject({ verdict: "block", reason: expect.stringContaining("rm -rf refused") });
    expect((await runtime.dispatch(guard, toolPre("Bash", { command: "ls" }))).verdict).toBe("allow");
  });

  it("parser › Parser sections › gates › parses gate with all fields (a blocking agent.stop hook on `after`)", async () => {
    const result = load(`topology t : [pipeline] {
${HEAD}
  agent b { model: opus }
  agent c { model: opus }
  gates {
    gate quality {
      after: b
      before: c
      run: "scripts/check.sh"
      checks: [grammar, formatting]
      on-fail: bounce-back
      retry: 2
      behavior: blocking
    }
  }
  flow { a -> b -> c }
}`);
    expect(result.hooks).toEqual([
      expect.objectContaining({ name: "gate quality", event: "agent.stop", matcher: "b", action: { type: "command", command: "scripts/check.sh" }, onFailure: "block" }),
    ]);
    expect(warningPaths(result)).toEqual(expect.arrayContaining(["topology.t.gates.quality.retry", "topology.t.gates.quality.checks", "topology.t.gates.quality.before"]));
    // A failing check keeps b from stopping (bounce-back); a passing one lets it stop; c is not gated.
    const failing = await runtime.dispatch(withCommand(result, `echo "grammar: 3 errors" >&2; exit 1`), stopOf("b"));
    expect(failing).toMatchObject({ verdict: "block", blockedBy: result.hooks[0].id, reason: expect.stringContaining("grammar: 3 errors") });
    expect((await runtime.dispatch(withCommand(result, "exit 0"), stopOf("b"))).verdict).toBe("allow");
    const other = await runtime.dispatch(withCommand(result, "exit 1"), stopOf("c"));
    expect(other.verdict).toBe("allow");
    expect(other.ledger.some((l) => l.matched)).toBe(false);
  });

  it("parser › Parser sections › gates › parses gate with extensions (the gate stays; extensions are reported)", () => {
    const result = load(`topology t : [pipeline] {
${HEAD}
  agent b { model: opus }
  gates {
    gate ext-gate {
      after: b
      run: "check.sh"
      extensions {
        custom {
          enabled: true
        }
      }
    }
  }
  flow { a -> b }
}`);
    expect(result.hooks).toEqual([expect.objectContaining({ name: "gate ext-gate", event: "agent.stop", matcher: "b", onFailure: "block" })]);
    expect(warningPaths(result)).toContain("topology.t.gates.ext-gate.extensions");
  });

  it("parser › Parser sections › gates › gate with timeout parses correctly (2m)", () => {
    const result = load(`topology t : [pipeline] {
${HEAD}
  agent w { model: sonnet }
  gates {
    gate quality-check {
      after: w
      run: "check.sh"
      timeout: 2m
    }
  }
  flow { a -> w }
}`);
    expect(result.hooks).toEqual([expect.objectContaining({ name: "gate quality-check", matcher: "w", timeoutMs: 120_000 })]);
  });

  it("parser › Validation errors › V30: invalid timeout on gate produces error", () => {
    const issues = importIssues(`topology t : [pipeline] {
${HEAD}
  agent worker { model: sonnet }
  gates {
    gate qg {
      after: worker
      run: "check.sh"
      timeout: forever
    }
  }
  flow { a -> worker }
}`);
    expect(issues).toEqual([expect.stringMatching(/^topology\.t\.gates\.qg\.timeout: "forever" is not a timeout/)]);
  });

  it("parser › Validation errors › V13 GateAnchors: gate with after referencing non-existent node (differs: reported, the rest imports)", () => {
    // AgenTopology's validator refuses the topology; Hookplane imports the rest and reports the
    // gate, which it cannot wire (there is no agent to stop).
    const result = load(`topology t : [pipeline] {
${HEAD}
  agent worker { model: opus }
  gates {
    gate check {
      after: nonexistent
      run: "lint.sh"
    }
  }
  flow { a -> worker }
}`);
    expect(result.hooks).toEqual([]);
    expect(result.agents.map((a) => a.name)).toEqual(["worker"]);
    expect(result.warnings.find((w) => w.path === "topology.t.gates.check")?.message).toMatch(/"nonexistent", which is not an agent/);
  });

  it("parser › Edge cases › gate with only after (no before)", () => {
    const result = load(`topology t : [pipeline] {
${HEAD}
  agent b { model: opus }
  gates {
    gate after-only {
      after: b
      run: "check.sh"
    }
  }
  flow { a -> b }
}`);
    expect(result.hooks).toEqual([expect.objectContaining({ name: "gate after-only", event: "agent.stop", matcher: "b" })]);
    expect(warningPaths(result).filter((p) => p.startsWith("topology.t.gates"))).toEqual([]);
  });

  it("parser › Edge cases › hook with only on and run (minimal): Stop with Claude Code's stdin", async () => {
    const result = load(`topology t : [pipeline] {
${HEAD}
  flow { a -> a }
  hooks {
    hook minimal {
      on: Stop
      run: "cleanup.sh"
    }
  }
}`);
    expect(result.hooks).toEqual([
      { id: result.hooks[0].id, dialect: "agentopology", name: "minimal", event: "turn.end", scope: "global", action: { type: "command", command: "cleanup.sh" }, onFailure: "continue" },
    ]);
    const dispatched = await runtime.dispatch(withCommand(result, "cat"), event("turn.end", { response: "done" }, { agentName: "w" }));
    expect(JSON.parse(dispatched.ledger[0].stdout!)).toMatchObject({ hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "done" });
  });

  it("parser › C13: extensions block inside hook bodies › parses extensions inside a global hook", () => {
    const result = load(`topology t : [pipeline] {
${HEAD}
  agent w { model: opus }
  hooks {
    hook lint-check {
      on: PreToolUse
      matcher: "Write"
      run: "eslint --fix"
      type: command
      extensions {
        claude-code {
          priority: 1
        }
      }
    }
  }
  flow { a -> w }
}`);
    expect(result.hooks).toEqual([expect.objectContaining({ name: "lint-check", event: "tool.pre", scope: "global", matcher: "Write", action: { type: "command", command: "eslint --fix" } })]);
    expect(warningPaths(result)).toContain("topology.t.hooks.lint-check.extensions");
  });

  it("parser › C13: extensions block inside hook bodies › parses extensions inside a per-agent hook", () => {
    const result = load(`topology t : [pipeline] {
${HEAD}
  agent w {
    model: opus
    hooks {
      hook format-check {
        on: PostToolUse
        matcher: "Write"
        run: "prettier --write"
        extensions {
          copilot {
            enabled: true
          }
        }
      }
    }
  }
  flow { a -> w }
}`);
    expect(result.hooks).toEqual([expect.objectContaining({ name: "format-check", event: "tool.post", scope: "agent:w", matcher: "Write" })]);
    expect(warningPaths(result)).toContain("topology.t.agent.w.hooks.format-check.extensions");
  });

  it("parser › C13: extensions block inside hook bodies › hook without extensions still works", async () => {
    const result = load(`topology t : [pipeline] {
${HEAD}
  agent w { model: opus }
  hooks {
    hook simple {
      on: PreToolUse
      matcher: "Read"
      run: "echo ok"
    }
  }
  flow { a -> w }
}`);
    expect(warningPaths(result).filter((p) => p.includes("hooks"))).toEqual([]);
    const fired = await runtime.dispatch(runnable(result), toolPre("Read", {}, { agentName: "w" }));
    expect(fired.ledger).toEqual([expect.objectContaining({ matched: true, stdout: "ok\n" })]);
  });

  it("parser › fragments › fragment with hooks (AgentStop, matcher *)", async () => {
    const result = load(`
fragment security-hooks {
  hooks {
    hook audit-log {
      on: AgentStop
      matcher: "*"
      run: "scripts/audit.sh"
      type: command
    }
  }
}`);
    expect(result.hooks).toEqual([expect.objectContaining({ name: "audit-log", event: "agent.stop", scope: "global", matcher: "*", onFailure: "continue" })]);
    const hooks = withCommand(result, `echo "audit $AGENT_NAME"`);
    for (const agent of ["writer", "reviewer"]) {
      expect((await runtime.dispatch(hooks, stopOf(agent))).ledger).toEqual([expect.objectContaining({ matched: true, stdout: `audit ${agent}\n` })]);
    }
  });
});

/** bindings.test.ts's TOPOLOGY_SOURCE, reduced to what bears on hooks (the other blocks are reported). */
const BINDING_SOURCE = `topology test-scaffold : [pipeline, fan-out] {
  meta {
    version: "1.0.0"
  }
  orchestrator {
    model: opus
    handles: [intake]
  }
  action intake {
    kind: external
  }
  agent planner {
    model: sonnet
    tools: [Read, Grep]
  }
  agent builder {
    model: opus
    tools: [Read, Write, Bash]
  }
  flow {
    intake -> planner
    planner -> builder  [when planner.status == ready]
  }
  gates {
    gate quality-check {
      after: builder
      run: "scripts/lint.sh"
      checks: [lint, types]
      on-fail: halt
    }
    gate soft-review {
      after: planner
      run: "scripts/review.sh"
      behavior: advisory
    }
  }
  hooks {
    hook post-build {
      on: PostToolUse
      matcher: Write
      run: "scripts/post-build.sh"
      type: command
    }
  }
}`;

describe("AgenTopology src/bindings/__tests__/bindings.test.ts (claude-code binding)", () => {
  const result = load(BINDING_SOURCE);
  const gate = () => result.hooks.find((h) => h.name === "gate quality-check")!;

  it("bindings › claude-code binding › produces .claude/settings.json with hooks (PostToolUse on Write, Claude Code's stdin)", async () => {
    const postBuild = result.hooks.find((h) => h.name === "post-build");
    expect(postBuild).toMatchObject({ event: "tool.post", matcher: "Write", action: { command: "scripts/post-build.sh" }, onFailure: "continue" });
    const hooks = withCommand({ ...result, hooks: [postBuild!] }, "cat");
    const after = await runtime.dispatch(hooks, event("tool.post", { toolName: "Write", toolInput: { file_path: "out.md" }, output: "written" }, { agentName: "builder" }));
    expect(JSON.parse(after.ledger[0].stdout!)).toMatchObject({ hook_event_name: "PostToolUse", tool_name: "Write", tool_input: { file_path: "out.md" }, tool_response: "written" });
    expect((await runtime.dispatch(hooks, event("tool.post", { toolName: "Read" }, { agentName: "builder" }))).ledger[0]?.matched ?? false).toBe(false);
  });

  it("bindings › claude-code binding › compiles enforced gate to settings.json SubagentStop hook with after: agent as matcher", async () => {
    expect(gate()).toMatchObject({ event: "agent.stop", matcher: "builder", action: { command: "scripts/lint.sh" }, onFailure: "block" });
    const lintFails = withCommand({ ...result, hooks: [gate()] }, `echo "2 type errors" >&2; exit 1`);
    expect(await runtime.dispatch(lintFails, stopOf("builder"))).toMatchObject({ verdict: "block", reason: expect.stringContaining("2 type errors") });
    expect((await runtime.dispatch(lintFails, stopOf("planner"))).verdict).toBe("allow");
  });

  it("bindings › claude-code binding › does NOT compile advisory gate to settings.json hook", () => {
    expect(result.hooks.map((h) => h.name)).toEqual(["post-build", "gate quality-check"]);
    expect(result.warnings.find((w) => w.path === "topology.test-scaffold.gates.soft-review")?.message).toMatch(/advisory gate is not enforced/);
  });

  it("bindings › claude-code binding — gate SubagentStop targeting (#3) › emits for an agent, not for a human node; warns about the human one", () => {
    const targeted = load(`topology gate-target-test : [pipeline] {
  orchestrator { model: opus handles: [intake] }
  action intake { kind: inline }
  agent writer { model: sonnet }
  human approver { description: "Signs off" }
  gates {
    gate gate-on-agent {
      after: writer
      run: "scripts/check-writer.sh"
      behavior: blocking
    }
    gate gate-on-human {
      after: approver
      run: "scripts/check-approval.sh"
      behavior: blocking
    }
  }
  flow { intake -> writer -> approver }
}`);
    expect(targeted.hooks).toEqual([expect.objectContaining({ name: "gate gate-on-agent", event: "agent.stop", matcher: "writer", onFailure: "block" })]);
    const humanWarning = targeted.warnings.find((w) => w.path === "topology.gate-target-test.gates.gate-on-human");
    expect(humanWarning?.message).toMatch(/"approver", which is not an agent/);
  });

  it("bindings › claude-code binding — exotic features › hooks and gates in settings.json › PostToolUse hook with matcher and timeout in milliseconds", () => {
    const exotic = load(`topology debate : [debate] {
  agent judge-agent { model: opus }
  hooks {
    hook log-round {
      on: PostToolUse
      matcher: "Write"
      run: "scripts/log-round.sh"
      timeout: 5000
    }
  }
}`);
    expect(exotic.hooks).toEqual([expect.objectContaining({ name: "log-round", event: "tool.post", matcher: "Write", timeoutMs: 5000 })]);
  });

  it("bindings › claude-code binding — inline orchestrator delegation (#7) › no SubagentStop entries (differs: imported, and they run at the agent's stop)", async () => {
    // With `delegation: inline` no subagent is spawned, so the binding drops SubagentStop hooks and
    // gates. Hookplane's flows run each stage agent, so agent.stop does fire: the hooks are imported.
    const inline = load(`topology inline-test : [pipeline] {
  orchestrator {
    model: opus
    delegation: inline
    handles: [start]
  }
  action start { kind: inline }
  agent writer { model: sonnet }
  agent publisher { model: sonnet }
  flow {
    start -> writer
    writer -> publisher
  }
  gates {
    gate quality-check {
      after: writer
      before: publisher
      run: "scripts/check.sh"
      on-fail: bounce-back
      behavior: blocking
    }
  }
  hooks {
    hook log-finish {
      on: SubagentStop
      matcher: writer
      run: "scripts/log.sh"
      type: command
    }
  }
}`);
    expect(inline.hooks.map((h) => [h.name, h.event, h.matcher])).toEqual([
      ["log-finish", "agent.stop", "writer"],
      ["gate quality-check", "agent.stop", "writer"],
    ]);
    const fired = await runtime.dispatch(withCommand(inline, "exit 1"), stopOf("writer"));
    expect(fired.ledger.filter((l) => l.matched)).toHaveLength(2);
    expect(fired.verdict).toBe("block");
  });
});

describe("AgenTopology src/bindings/__tests__/bindings.test.ts (gemini-cli and cursor bindings)", () => {
  const result = load(BINDING_SOURCE);

  it("bindings › gemini-cli binding › includes hooks in settings.json with correct event mapping (PostToolUse → after the tool)", async () => {
    const postBuild = withCommand({ ...result, hooks: result.hooks.filter((h) => h.name === "post-build") }, "echo after");
    expect((await runtime.dispatch(postBuild, toolPre("Write", {}, { agentName: "builder" }))).ledger.some((l) => l.matched)).toBe(false);
    expect((await runtime.dispatch(postBuild, event("tool.post", { toolName: "Write" }, { agentName: "builder" }))).ledger[0]).toMatchObject({ matched: true, stdout: "after\n" });
  });

  it("bindings › cursor binding — ground-truth validation › hooks.json › gate with on-fail: halt compiles to failClosed: true", async () => {
    const gate = result.hooks.find((h) => h.name === "gate quality-check")!;
    expect(gate.onFailure).toBe("block");
    // Fail closed: a gate script that cannot run at all still blocks.
    const missing = withCommand({ ...result, hooks: [gate] }, "/nonexistent/gate-quality-check.sh");
    expect((await runtime.dispatch(missing, stopOf("builder"))).verdict).toBe("block");
  });

  it("bindings › cursor binding — ground-truth validation › hooks.json › advisory gate does NOT have failClosed (differs: not imported at all)", () => {
    // The cursor binding writes an advisory gate as a hook that may fail open; the claude-code
    // binding writes none. Hookplane follows claude-code: the advisory gate is reported, not run.
    expect(result.hooks.some((h) => h.name?.includes("soft-review"))).toBe(false);
    expect(warningPaths(result)).toContain("topology.test-scaffold.gates.soft-review");
  });

  it("bindings › cursor binding — exotic features › hooks timeout conversion and gate compilation › converts 5000ms to 5s", () => {
    const exotic = load(`hooks {\n  hook log-round {\n    on: PostToolUse\n    matcher: "Write"\n    run: "scripts/log-round.sh"\n    timeout: 5000\n  }\n}`);
    expect(exotic.hooks[0].timeoutMs).toBe(5000);
  });

  it("bindings › cursor binding — exotic features › gate on-fail:halt with after+before uses before → preToolUse (differs: fires at after's stop)", () => {
    // The cursor binding has no per-agent stop event, so a gate with `before` runs before the next
    // tool call; Hookplane wires every gate as claude-code does: a blocking agent.stop of `after`.
    const result = load(`topology debate : [debate] {
  agent debate-arena { model: opus }
  agent judge-agent { model: opus }
  gates {
    gate fact-check {
      after: debate-arena
      before: judge-agent
      run: "scripts/fact-check.sh"
      on-fail: halt
    }
  }
  flow { debate-arena -> judge-agent }
}`);
    expect(result.hooks).toEqual([expect.objectContaining({ name: "gate fact-check", event: "agent.stop", matcher: "debate-arena", onFailure: "block" })]);
    expect(result.hooks.some((h) => h.event === "tool.pre")).toBe(false);
  });
});
