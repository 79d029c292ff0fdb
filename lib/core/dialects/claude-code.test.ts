import { describe, expect, it } from "vitest";
import type { HookSpecInput } from "@/lib/core/hooks/spec";
import { exportConfig, importConfig } from "./index";
import { readFixture } from "./fixtures/fixture-files";
import { parseError } from "@/test/dialect-harness";

const command = (cmd: string) => ({ type: "command" as const, command: cmd });

describe("claude-code import: settings.json", () => {
  const result = importConfig("claude-code", readFixture("claude-code/settings.json"));

  it("maps every command hook with its event, matcher, timeout in ms and onFailure continue", () => {
    expect(result.hooks).toEqual([
      { id: "pre-tool-use-1", dialect: "claude-code", event: "tool.pre", scope: "global", matcher: "Bash", action: command("./hooks/check-bash.sh"), timeoutMs: 30_000, onFailure: "continue" },
      { id: "pre-tool-use-2", dialect: "claude-code", event: "tool.pre", scope: "global", matcher: "Bash", action: command("hookplane hook claude-code --agent coder"), timeoutMs: 600_000, onFailure: "continue" },
      { id: "pre-tool-use-3", dialect: "claude-code", event: "tool.pre", scope: "global", matcher: "Write|Edit", action: command("jq -r .tool_input.file_path >> edits.log"), timeoutMs: 5_000, onFailure: "continue" },
      { id: "post-tool-use-1", dialect: "claude-code", event: "tool.post", scope: "global", matcher: "*", action: command("./hooks/audit.sh"), timeoutMs: 600_000, onFailure: "continue" },
      { id: "user-prompt-submit-1", dialect: "claude-code", event: "user.prompt.submit", scope: "global", action: command("./hooks/prompt-guard.sh"), timeoutMs: 10_000, onFailure: "continue" },
      { id: "session-start-1", dialect: "claude-code", event: "session.start", scope: "global", action: command("cat CONTEXT.md"), timeoutMs: 600_000, onFailure: "continue" },
      { id: "stop-1", dialect: "claude-code", event: "session.end", scope: "global", action: command("./hooks/on-stop.sh"), timeoutMs: 600_000, onFailure: "continue" },
      { id: "subagent-stop-1", dialect: "claude-code", event: "session.end", scope: "global", action: command("./hooks/on-subagent-stop.sh"), timeoutMs: 600_000, onFailure: "continue" },
      { id: "session-end-1", dialect: "claude-code", event: "session.end", scope: "global", action: command("./hooks/archive.sh"), timeoutMs: 120_000, onFailure: "continue" },
    ]);
    expect(result.agents).toEqual([]);
    expect(result.schedules).toEqual([]);
  });

  it("reports what has no canonical counterpart, by path", () => {
    const paths = result.warnings.map((w) => w.path);
    expect(paths).toEqual(
      expect.arrayContaining(["hooks.Notification", "hooks.PreCompact", "hooks.SessionStart[0].matcher", "hooks.SubagentStop", "permissions"]),
    );
    expect(result.warnings.find((w) => w.path === "hooks.Notification")?.message).toMatch(/no Hookplane event/);
  });

  it("puts the hooks in the agent's scope when an agent is given", () => {
    const scoped = importConfig("claude-code", readFixture("claude-code/settings.json"), { agent: "coder" });
    expect(new Set(scoped.hooks.map((h) => h.scope))).toEqual(new Set(["agent:coder"]));
  });
});

describe("claude-code import: plugin hooks.json", () => {
  it("reads the wrapped hooks and reports the description", () => {
    const result = importConfig("claude-code", readFixture("claude-code/plugin-hooks.json"));
    expect(result.hooks).toEqual([
      {
        id: "post-tool-use-1",
        dialect: "claude-code",
        event: "tool.post",
        scope: "global",
        matcher: "Write|Edit|MultiEdit",
        action: command("${CLAUDE_PLUGIN_ROOT}/scripts/format.sh"),
        timeoutMs: 30_000,
        onFailure: "continue",
      },
    ]);
    expect(result.warnings).toEqual([{ path: "description", message: expect.stringMatching(/description/) }]);
  });
});

describe("claude-code import: malformed input", () => {
  it("names the line of a JSON syntax error", () => {
    const error = parseError(() => importConfig("claude-code", '{\n  "hooks": {\n    "PreToolUse": [,]\n  }\n}'));
    expect(error.issues[0].line).toBe(3);
    expect(error.issues[0].message).toMatch(/invalid JSON at line 3/);
  });

  it("names the path of a wrongly typed timeout", () => {
    const content = JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "a" }, { type: "command", command: "b", timeout: "30" }] }] },
    });
    const error = parseError(() => importConfig("claude-code", content));
    expect(error.issues).toEqual([{ path: "hooks.PreToolUse[0].hooks[1].timeout", message: expect.stringMatching(/positive number \(seconds\), got a string/) }]);
  });

  it("requires hooks, and a command for each command hook", () => {
    expect(parseError(() => importConfig("claude-code", "{}")).issues).toEqual([{ path: "hooks", message: "is required" }]);
    const error = parseError(() => importConfig("claude-code", JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command" }] }] } })));
    expect(error.issues.map((i) => i.path)).toEqual(["hooks.Stop[0].hooks[0].command"]);
  });

  it("suggests the nearest event for an unknown one", () => {
    const result = importConfig("claude-code", JSON.stringify({ hooks: { PreToolUser: [{ hooks: [{ type: "command", command: "x" }] }] } }));
    expect(result.hooks).toEqual([]);
    expect(result.warnings[0]).toEqual({ path: "hooks.PreToolUser", message: expect.stringContaining('did you mean "PreToolUse"') });
  });

  it("warns about non-command hook types instead of dropping them silently", () => {
    const result = importConfig("claude-code", JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "prompt", prompt: "Done?" }] }] } }));
    expect(result.hooks).toEqual([]);
    expect(result.warnings).toEqual([{ path: "hooks.Stop[0].hooks[0].type", message: expect.stringMatching(/"prompt" hooks/) }]);
  });
});

/** Every expressible combination: the five events, matchers on tool events, whole-second timeouts. */
function expressibleHooks(): HookSpecInput[] {
  const events = [
    ["PreToolUse", "tool.pre"],
    ["PostToolUse", "tool.post"],
    ["UserPromptSubmit", "user.prompt.submit"],
    ["SessionStart", "session.start"],
    ["SessionEnd", "session.end"],
  ] as const;
  const hooks: HookSpecInput[] = [];
  for (const [claudeEvent, event] of events) {
    const tool = claudeEvent.endsWith("ToolUse");
    const matchers = tool ? ["Bash", "Bash", "Write|Edit", undefined, "mcp__.*"] : [undefined];
    let n = 0;
    for (const [i, matcher] of matchers.entries()) {
      for (const timeoutMs of [1000, 600_000, 45_000]) {
        n++;
        hooks.push({
          id: `${claudeEvent.replace(/([a-z])([A-Z])/g, "$1-$2").toLowerCase()}-${n}`,
          event,
          scope: "global",
          ...(matcher !== undefined ? { matcher } : {}),
          action: command(`./hooks/${claudeEvent}-${i}-${timeoutMs}.sh "$ARG"`),
          timeoutMs,
          onFailure: "continue",
        });
      }
    }
  }
  return hooks;
}

describe("claude-code export", () => {
  it("round-trips everything Claude Code can express", () => {
    const hooks = expressibleHooks();
    const exported = exportConfig("claude-code", { agents: [], hooks, schedules: [] });
    expect(exported.warnings).toEqual([]);
    expect(importConfig("claude-code", exported.content).hooks).toEqual(hooks.map((hook) => ({ ...hook, dialect: "claude-code" })));
  });

  it("round-trips the imported fixture, ids aside (Claude Code has none)", () => {
    const imported = importConfig("claude-code", readFixture("claude-code/settings.json"));
    const again = importConfig("claude-code", exportConfig("claude-code", imported).content);
    const withoutIds = (hooks: HookSpecInput[]) => hooks.map(({ id: _id, ...rest }) => rest);
    expect(withoutIds(again.hooks)).toEqual(withoutIds(imported.hooks));
  });

  it("groups consecutive hooks with the same matcher and writes timeouts in seconds", () => {
    const { content } = exportConfig("claude-code", { agents: [], hooks: expressibleHooks().slice(0, 4), schedules: [] });
    expect(JSON.parse(content)).toEqual({
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command: './hooks/PreToolUse-0-1000.sh "$ARG"', timeout: 1 },
              { type: "command", command: './hooks/PreToolUse-0-600000.sh "$ARG"' },
              { type: "command", command: './hooks/PreToolUse-0-45000.sh "$ARG"', timeout: 45 },
              { type: "command", command: './hooks/PreToolUse-1-1000.sh "$ARG"', timeout: 1 },
            ],
          },
        ],
      },
    });
  });

  it("warns about what Claude Code cannot express", () => {
    const base = { scope: "global", action: command("x"), onFailure: "continue" as const };
    const hooks: HookSpecInput[] = [
      { ...base, id: "gate", dialect: "claude-code", event: "tool.pre", action: { type: "block", reason: "no" } },
      { ...base, id: "metering", dialect: "claude-code", event: "model.post" },
      { ...base, id: "odd-timeout", dialect: "claude-code", event: "tool.pre", timeoutMs: 1500 },
      { ...base, id: "off", dialect: "claude-code", event: "tool.pre", enabled: false },
      { ...base, id: "fail-closed", dialect: "claude-code", event: "tool.pre", onFailure: "block" },
      { ...base, id: "outcomes", dialect: "claude-code", event: "session.end", onOutcomes: ["failed"] },
    ];
    const { content, warnings } = exportConfig("claude-code", { agents: [], hooks, schedules: [] });
    expect(warnings.map((w) => w.path)).toEqual([
      "hooks.gate.action",
      "hooks.metering.event",
      "hooks.odd-timeout.timeoutMs",
      "hooks.off.enabled",
      "hooks.fail-closed.onFailure",
      "hooks.outcomes.onOutcomes",
    ]);
    expect(JSON.parse(content).hooks.PreToolUse[0].hooks[0].timeout).toBe(2);
  });
});
