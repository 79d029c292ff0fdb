/**
 * Tailored AI's own hook tests, ported case by case (quintonmiller/tailored-ai,
 * packages/core/src/__tests__/: config-hooks.test.ts (matchesWhen, runEventHooks),
 * hooks-fail-closed.test.ts (executeHooks), hooks-scope.test.ts and lifecycle-hooks.test.ts (the
 * script handler)). Each scenario is written anew: the hooks come from
 * `importConfig("tailored-ai", …)` (so they carry Tailored AI's runtime contract) and run through
 * `createHookRuntime().dispatch`. Titles cite `<file> › <test name>`; where Hookplane deliberately
 * differs, the test asserts the difference docs/dialect-semantics.md explains.
 */
import { describe, expect, it } from "vitest";
import { importConfig } from "@/lib/core/dialects";
import type { ToolPort } from "../ports";
import { createHookRuntime } from "../runtime";
import type { HookRuntimeOptions, RuntimeHook } from "../runtime-types";
import { hookSpecSchema } from "../spec";
import { event, toolPre } from "../testing/fakes";

type Behaviour = string | Error | { error: string };

/** Registered tools: each answers its text, throws, or reports a failure. */
function tools(defs: Record<string, Behaviour>): ToolPort & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    list: () => Object.keys(defs).map((name) => ({ name })),
    async call(name) {
      calls.push(name);
      const def = defs[name];
      if (def === undefined) return { output: `unknown tool "${name}"`, isError: true };
      if (def instanceof Error) throw def;
      if (typeof def === "object") return { output: def.error, isError: true };
      return { output: def };
    },
  };
}

const runtime = (port: ToolPort, extra: HookRuntimeOptions = {}) => createHookRuntime({ tools: port, allowCodeExecution: true, ...extra });

/** `agents.nova.hooks.on["agent.pre_tool_use"]` (or another event) → the hooks Hookplane runs. */
function onHooks(entries: unknown[], eventName = "agent.pre_tool_use"): RuntimeHook[] {
  const config = { agents: { nova: { hooks: { on: { [eventName]: entries } } } } };
  return importConfig("tailored-ai", JSON.stringify(config)).hooks.map((h) => hookSpecSchema.parse(h));
}
/** `agents.nova.hooks.beforeRun` → session.start tool hooks. */
function beforeRun(entries: unknown[]): RuntimeHook[] {
  const config = { agents: { nova: { hooks: { beforeRun: entries } } } };
  return importConfig("tailored-ai", JSON.stringify(config)).hooks.map((h) => hookSpecSchema.parse(h));
}
const exec = (tool = "exec", extra = {}) => toolPre(tool, {}, { agentName: "nova", ...extra });
const start = () => event("session.start", { prompt: "check mail" }, { agentName: "nova" });

describe("Tailored AI config-hooks.test.ts › matchesWhen (as matchers and scopes)", () => {
  const rt = runtime(tools({ policy_check: "fine" }));
  const matchedFor = async (when: Record<string, string>, tool: string, agent = "nova") =>
    (await rt.dispatch(onHooks([{ tool: "policy_check", when }]), exec(tool, { agentName: agent }))).ledger[0]?.matched ?? false;

  it("config-hooks › matches a field exactly; does not match a neighbouring name", async () => {
    expect(await matchedFor({ tool: "exec" }, "exec")).toBe(true);
    expect(await matchedFor({ tool: "exec" }, "read")).toBe(false);
    expect(await matchedFor({ tool: "exec" }, "exec_sandboxed")).toBe(false);
  });

  it("config-hooks › takes a regex between slashes (a search: /^web_/ fires for web_fetch)", async () => {
    expect(await matchedFor({ tool: "/^web_/" }, "web_fetch")).toBe(true);
    expect(await matchedFor({ tool: "/^web_/" }, "exec")).toBe(false);
    expect(await matchedFor({ tool: "/fetch/" }, "web_fetch")).toBe(true);
  });

  it("config-hooks › requires every declared field (tool and agent)", async () => {
    expect(await matchedFor({ tool: "exec", agent: "nova" }, "exec", "nova")).toBe(true);
    expect(await matchedFor({ tool: "exec", agent: "nova" }, "exec", "atlas")).toBe(false);
  });

  it("config-hooks › matches everything when nothing is declared", async () => {
    expect((await rt.dispatch(onHooks([{ tool: "policy_check" }]), exec("anything"))).ledger[0].matched).toBe(true);
  });
});

describe("Tailored AI config-hooks.test.ts › runEventHooks", () => {
  it("config-hooks › runs the tool and allows by default", async () => {
    const result = await runtime(tools({ policy_check: "fine" })).dispatch(onHooks([{ tool: "policy_check" }]), exec());
    expect(result.verdict).toBe("allow");
  });

  it("config-hooks › refuses when denyIf matches, using the tool's own words", async () => {
    const result = await runtime(tools({ policy_check: "BLOCK: /etc is off limits" })).dispatch(onHooks([{ tool: "policy_check", denyIf: "BLOCK" }]), exec());
    expect(result).toMatchObject({ verdict: "block", reason: "BLOCK: /etc is off limits" });
    expect(result.reminders).toEqual(["hook on-agent-pre-tool-use-1 blocked exec: BLOCK: /etc is off limits"]);
  });

  it("config-hooks › ignores denyIf on an event that cannot be refused", async () => {
    const hooks = onHooks([{ tool: "audit", denyIf: "BLOCK" }], "agent.post_tool_use");
    const result = await runtime(tools({ audit: "BLOCK" })).dispatch(hooks, event("tool.post", { toolName: "exec", output: "ok" }, { agentName: "nova" }));
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0]).toMatchObject({ verdict: "block", ignored: true });
  });

  it("config-hooks › skips a hook whose when does not match", async () => {
    const port = tools({ policy_check: "BLOCK" });
    const result = await runtime(port).dispatch(onHooks([{ tool: "policy_check", when: { tool: "read" }, denyIf: "BLOCK" }]), exec());
    expect(result.verdict).toBe("allow");
    expect(port.calls).toEqual([]);
  });

  it("config-hooks › refuses when a policy hook cannot run (fail closed), and a tool that reports failure is a failure", async () => {
    const thrown = await runtime(tools({ policy_check: new Error("upstream down") })).dispatch(onHooks([{ tool: "policy_check" }]), exec());
    expect(thrown).toMatchObject({ verdict: "block", reason: expect.stringContaining("upstream down") });
    const reported = await runtime(tools({ policy_check: { error: "no creds" } })).dispatch(onHooks([{ tool: "policy_check" }]), exec());
    expect(reported).toMatchObject({ verdict: "block", reason: "tool policy_check failed: no creds" });
  });

  it("config-hooks › lets a hook opt out of failing closed (onError: continue)", async () => {
    const result = await runtime(tools({ policy_check: new Error("upstream down") })).dispatch(onHooks([{ tool: "policy_check", onError: "continue" }]), exec());
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0]).toMatchObject({ failed: true });
  });

  it("config-hooks › skips a missing tool without refusing", async () => {
    const result = await runtime(tools({})).dispatch(onHooks([{ tool: "gone" }]), exec());
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0]).toMatchObject({ failed: false, reason: "skipped: tool gone is not registered (Tailored AI skips the hook and goes on)" });
  });

  it("config-hooks › stops at the first refusal", async () => {
    const port = tools({ policy_check: "BLOCK", second: "ok" });
    const result = await runtime(port).dispatch(onHooks([{ tool: "policy_check", denyIf: "BLOCK" }, { tool: "second", denyIf: "BLOCK" }]), exec());
    expect(result).toMatchObject({ verdict: "block", reason: "BLOCK" });
    expect(port.calls).toEqual(["policy_check"]);
  });

  it("config-hooks › ConfigHooks only fires for the agent that declared it", async () => {
    const result = await runtime(tools({ policy_check: "BLOCK" })).dispatch(onHooks([{ tool: "policy_check", denyIf: "BLOCK" }]), exec("exec", { agentName: "atlas" }));
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0]).toMatchObject({ matched: false, reason: "scope agent:nova does not apply to agent atlas" });
  });
});

describe("Tailored AI hooks-fail-closed.test.ts › executeHooks (beforeRun)", () => {
  it("hooks-fail-closed › aborts when a hook throws / reports success:false without throwing", async () => {
    const thrown = await runtime(tools({ gmail: new Error("oauth2: invalid_grant") })).dispatch(beforeRun([{ tool: "gmail" }]), start());
    expect(thrown).toMatchObject({ verdict: "block", reason: expect.stringContaining("invalid_grant") });
    const reported = await runtime(tools({ gmail: { error: "oauth2: invalid_grant" } })).dispatch(beforeRun([{ tool: "gmail", skipIf: "^No results" }]), start());
    expect(reported).toMatchObject({ verdict: "block", reason: expect.stringContaining("invalid_grant") });
  });

  it("hooks-fail-closed › skips a hook whose tool is not registered without killing the pipeline", async () => {
    const port = tools({ calendar: "later ran" });
    const result = await runtime(port).dispatch(beforeRun([{ tool: "nonexistent" }, { tool: "calendar" }]), start());
    expect(result).toMatchObject({ verdict: "allow", output: "later ran" });
    expect(port.calls).toEqual(["calendar"]);
  });

  it("hooks-fail-closed › continues past a failure only when explicitly told to", async () => {
    const result = await runtime(tools({ gmail: new Error("boom"), calendar: "second ran" })).dispatch(
      beforeRun([{ tool: "gmail", onError: "continue" }, { tool: "calendar" }]),
      start(),
    );
    expect(result).toMatchObject({ verdict: "allow", output: "second ran" });
  });

  it("hooks-fail-closed › reports success normally; still honors skipIf on a successful hook", async () => {
    expect(await runtime(tools({ gmail: "3 new emails" })).dispatch(beforeRun([{ tool: "gmail" }]), start())).toMatchObject({ verdict: "allow", output: "3 new emails" });
    expect((await runtime(tools({ gmail: "No results" })).dispatch(beforeRun([{ tool: "gmail", skipIf: "^No results" }]), start())).verdict).toBe("skip");
  });
});

describe("Tailored AI hooks-scope.test.ts", () => {
  it("hooks-scope › gives the deployment first refusal (deployment hooks run before the agent's)", async () => {
    const config = {
      hooks: { on: { "agent.pre_tool_use": [{ tool: "deployment_check", denyIf: "NO" }] } },
      agents: { nova: { hooks: { on: { "agent.pre_tool_use": [{ tool: "agent_check", denyIf: "NO" }] } } } },
    };
    const hooks = importConfig("tailored-ai", JSON.stringify(config)).hooks.map((h) => hookSpecSchema.parse(h));
    const port = tools({ deployment_check: "NO from ops", agent_check: "NO from agent" });
    const result = await runtime(port).dispatch(hooks, exec());
    expect(result.reason).toBe("NO from ops");
    expect(port.calls).toEqual(["deployment_check"]);
  });

  it("hooks-scope › agent scoping: does not fire for a different agent; a deployment hook fires whoever", async () => {
    const config = { hooks: { on: { "agent.post_tool_use": [{ tool: "audit" }] } }, agents: { nova: { hooks: { on: { "agent.post_tool_use": [{ tool: "mine" }] } } } } };
    const hooks = importConfig("tailored-ai", JSON.stringify(config)).hooks.map((h) => hookSpecSchema.parse(h));
    const port = tools({ audit: "", mine: "" });
    await runtime(port).dispatch(hooks, event("tool.post", { toolName: "exec", output: "" }, { agentName: "planner" }));
    expect(port.calls).toEqual(["audit"]);
  });
});

describe("Tailored AI lifecycle-hooks.test.ts › the script handler", () => {
  const script = (command: string, eventName = "agent.pre_tool_use") => onHooks([{ type: "script", options: { command: "sh", args: ["-c", command] } }], eventName);
  const rt = runtime(tools({}));

  it("lifecycle-hooks › passes the payload as environment (TAI_*), and omits absent values", async () => {
    const result = await rt.dispatch(script('echo "$TAI_HOOK_EVENT|$TAI_AGENT|$TAI_TOOL|$TAI_ARGS|${TAI_NOTHING-unset}"'), toolPre("exec", { cmd: "ls" }, { agentName: "nova" }));
    expect(result.ledger[0].stdout).toBe('agent.pre_tool_use|nova|exec|{"cmd":"ls"}|unset\n');
  });

  it("lifecycle-hooks › treats exit 0 as pass and a non-zero exit as a refusal", async () => {
    expect((await rt.dispatch(script("exit 0"), exec())).verdict).toBe("allow");
    const denied = await rt.dispatch(script("echo nope >&2; exit 3"), exec());
    expect(denied).toMatchObject({ verdict: "block", reason: expect.stringContaining("nope") });
  });

  it("lifecycle-hooks › does not fault the process when the program ignores its input", async () => {
    expect((await rt.dispatch(onHooks([{ type: "script", options: { command: "true" } }]), toolPre("write", { content: "x".repeat(256 * 1024) }, { agentName: "nova" }))).verdict).toBe("allow");
  });

  it("lifecycle-hooks › reports a program that cannot be run as absent, never as a refusal", async () => {
    const result = await rt.dispatch(onHooks([{ type: "script", options: { command: "/nonexistent/definitely-not-here" } }]), exec());
    expect(result.verdict).toBe("allow");
    expect(result.ledger[0]).toMatchObject({ failed: false, reason: expect.stringMatching(/^skipped: /) });
  });

  it("lifecycle-hooks › the process environment — differs: only TAI_*, the hook variables and the admin's pass-through list", async () => {
    process.env.TAI_PORTED_VAR = "server-value";
    try {
      const hooks = script('echo "[$TAI_PORTED_VAR]"');
      expect((await rt.dispatch(hooks, exec())).ledger[0].stdout).toBe("[]\n");
      expect((await runtime(tools({}), { passEnv: ["TAI_PORTED_VAR"], environment: process.env }).dispatch(hooks, exec())).ledger[0].stdout).toBe("[server-value]\n");
    } finally {
      delete process.env.TAI_PORTED_VAR;
    }
  });
});
