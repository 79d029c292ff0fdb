import { describe, expect, it } from "vitest";
import type { HookSpecInput } from "@/lib/core/hooks/spec";
import { compileWhen } from "@/lib/core/hooks/when";
import { CLAUDE_CODE_EVENTS, CLAUDE_TO_CANONICAL } from "./claude-code-events";
import { detectDialect } from "./detect";
import { exportConfig, importConfig } from "./index";
import { readFixture } from "./fixtures/fixture-files";
import { parseError } from "@/test/dialect-harness";

const command = (cmd: string) => ({ type: "command" as const, command: cmd });

describe("claude-code import: settings.json", () => {
  const result = importConfig("claude-code", readFixture("claude-code/settings.json"));

  it("maps every command hook with its event, matcher, timeout in ms and onFailure continue", () => {
    expect(result.hooks).toEqual([
      { id: "pre-tool-use-1", dialect: "claude-code", event: "tool.pre", scope: "global", matcher: "Bash", action: command("./hooks/check-bash.sh"), timeoutMs: 30_000, onFailure: "continue" },
      { id: "pre-tool-use-3", dialect: "claude-code", event: "tool.pre", scope: "global", matcher: "Write|Edit", action: command("jq -r .tool_input.file_path >> edits.log"), timeoutMs: 5_000, onFailure: "continue" },
      { id: "post-tool-use-1", dialect: "claude-code", event: "tool.post", scope: "global", matcher: "*", action: command("./hooks/audit.sh"), timeoutMs: 600_000, onFailure: "continue" },
      { id: "user-prompt-submit-1", dialect: "claude-code", event: "user.prompt.submit", scope: "global", action: command("./hooks/prompt-guard.sh"), timeoutMs: 10_000, onFailure: "continue" },
      { id: "session-start-1", dialect: "claude-code", event: "session.start", scope: "global", action: command("cat CONTEXT.md"), timeoutMs: 600_000, onFailure: "continue" },
      { id: "stop-1", dialect: "claude-code", event: "turn.end", scope: "global", action: command("./hooks/on-stop.sh"), timeoutMs: 600_000, onFailure: "continue" },
      { id: "subagent-stop-1", dialect: "claude-code", event: "agent.stop", scope: "global", action: command("./hooks/on-subagent-stop.sh"), timeoutMs: 600_000, onFailure: "continue" },
      { id: "session-end-1", dialect: "claude-code", event: "session.end", scope: "global", action: command("./hooks/archive.sh"), timeoutMs: 120_000, onFailure: "continue" },
    ]);
    expect(result.agents).toEqual([]);
    expect(result.schedules).toEqual([]);
  });

  it("reports what has no canonical counterpart, by path", () => {
    const paths = result.warnings.map((w) => w.path);
    expect(paths).toEqual(
      expect.arrayContaining(["hooks.Notification", "hooks.PreCompact", "hooks.SessionStart[0].matcher", "hooks.PreToolUse[0].hooks[1]", "permissions"]),
    );
    expect(result.warnings.find((w) => w.path === "hooks.Notification")?.message).toMatch(/Claude Code's Notification: .*no event hooks bind to; its hooks were not imported/);
    // The bridge is Hookplane itself: a command calling back into Hookplane from its own server would be a loop.
    expect(result.warnings.find((w) => w.path === "hooks.PreToolUse[0].hooks[1]")?.message).toBe(
      "the Hookplane bridge (agent coder): the hooks it runs live in Hookplane; not imported as a command",
    );
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

  it("a settings file without hooks imports nothing and says so; each command hook needs its command", () => {
    expect(importConfig("claude-code", JSON.stringify({ permissions: { allow: ["Bash(ls)"] } }))).toMatchObject({
      hooks: [],
      warnings: [
        { path: "hooks", message: "this Claude Code settings file has no hooks; nothing was imported" },
        { path: "permissions", message: expect.stringContaining("not a hook") },
      ],
    });
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
      "hooks.metering.event",
      "hooks.odd-timeout.timeoutMs",
      "hooks.off.enabled",
      "hooks.fail-closed.onFailure",
      "hooks.outcomes.onOutcomes",
      // The block hook is bridged: global, so the bridge reads the agent from HOOKPLANE_AGENT.
      "hooks",
      "hooks",
    ]);
    expect(JSON.parse(content).hooks.PreToolUse[0]).toEqual({ hooks: [{ type: "command", command: "hookplane hook claude-code" }] });
    expect(Object.keys(JSON.parse(content).hooks)).toEqual(["PreToolUse", "SessionEnd", "SessionStart", "Stop"]);
    expect(JSON.parse(content).hooks.PreToolUse[1].hooks[0].timeout).toBe(2);
  });
});

describe("claude-code import: every current event", () => {
  const hookOn = (cmd: string, extra: Record<string, unknown> = {}) => [{ ...extra, hooks: [{ type: "command", command: cmd }] }];

  it("knows all of Claude Code's events: the mapped ones are imported, the rest warned about by name, none unknown", () => {
    const hooks = Object.fromEntries(CLAUDE_CODE_EVENTS.map((e) => [e, hookOn(`./on-${e}.sh`)]));
    const result = importConfig("claude-code", JSON.stringify({ hooks }));
    expect(result.hooks.map((h) => [h.event, h.when ?? null, (h.action as { command: string }).command])).toEqual([
      ["tool.pre", null, "./on-PreToolUse.sh"],
      ["tool.post", null, "./on-PostToolUse.sh"],
      ["tool.post", "isError", "./on-PostToolUseFailure.sh"],
      ["user.prompt.submit", null, "./on-UserPromptSubmit.sh"],
      ["session.start", null, "./on-SessionStart.sh"],
      ["session.end", null, "./on-SessionEnd.sh"],
      ["turn.end", null, "./on-Stop.sh"],
      ["error", null, "./on-StopFailure.sh"],
      ["agent.start", null, "./on-SubagentStart.sh"],
      ["agent.stop", null, "./on-SubagentStop.sh"],
    ]);
    expect(result.warnings.map((w) => w.path).sort()).toEqual(
      CLAUDE_CODE_EVENTS.filter((e) => typeof CLAUDE_TO_CANONICAL[e] !== "string").map((e) => `hooks.${e}`).sort(),
    );
    expect(result.warnings.some((w) => /unknown|did you mean/.test(w.message))).toBe(false);
    expect(result.warnings.find((w) => w.path === "hooks.PermissionRequest")?.message).toMatch(/an approve hook on tool\.pre answers it/);
  });

  it("subagent events keep their matcher (the agent type); failures and turn ends round-trip", () => {
    const content = JSON.stringify({
      hooks: {
        PostToolUseFailure: hookOn("./failed.sh", { matcher: "Bash" }),
        SubagentStop: hookOn("./explored.sh", { matcher: "Explore" }),
        Stop: hookOn("./tests.sh"),
      },
    });
    const imported = importConfig("claude-code", content);
    expect(imported.warnings).toEqual([]);
    expect(imported.hooks.map((h) => [h.event, h.matcher, h.when])).toEqual([
      ["tool.post", "Bash", "isError"],
      ["agent.stop", "Explore", undefined],
      ["turn.end", undefined, undefined],
    ]);
    const exported = exportConfig("claude-code", imported);
    expect(exported.warnings).toEqual([]);
    expect(JSON.parse(exported.content)).toEqual(JSON.parse(content));
  });

  it("a permission-rule matcher becomes the tool and a when on its input that Hookplane evaluates", () => {
    const result = importConfig(
      "claude-code",
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: "Write(docs/prds/**)", hooks: [{ type: "command", command: "./prd-check.sh" }] },
            { matcher: "Bash(npm run test:*)", hooks: [{ type: "command", command: "./tests.sh" }] },
            { matcher: "WebFetch(domain:example.com)", hooks: [{ type: "command", command: "./fetch.sh" }] },
            { matcher: "Edit", hooks: [{ type: "command", command: "./secrets.sh", if: "Edit(//etc/**)" }] },
          ],
        },
      }),
    );
    expect(result.warnings).toEqual([]);
    const [prd, tests, fetch, secrets] = result.hooks;
    expect(prd).toMatchObject({ matcher: "Write", when: "toolInput.file_path: /(^|/)docs\\/prds\\/.*$/" });
    const holds = (when: string, data: Record<string, unknown>) => compileWhen(when).check(data) === undefined;
    expect(holds(prd.when!, { toolInput: { file_path: "/work/proj/docs/prds/a/b.md" } })).toBe(true);
    expect(holds(prd.when!, { toolInput: { file_path: "/work/proj/docs/prd.md" } })).toBe(false);
    expect(holds(prd.when!, { toolInput: { file_path: "/work/proj/olddocs/prds/a.md" } })).toBe(false);
    expect(tests.matcher).toBe("Bash");
    expect(holds(tests.when!, { toolInput: { command: "npm run test:unit" } })).toBe(false);
    expect(holds(tests.when!, { toolInput: { command: "npm run test --watch" } })).toBe(true);
    expect(holds(tests.when!, { toolInput: { command: "npm run testing" } })).toBe(false);
    expect(holds(fetch.when!, { toolInput: { url: "https://docs.example.com/x" } })).toBe(true);
    expect(holds(fetch.when!, { toolInput: { url: "https://example.com.evil.io/" } })).toBe(false);
    expect(secrets).toMatchObject({ matcher: "Edit", when: expect.stringContaining("toolInput.file_path") });
    expect(holds(secrets.when!, { toolInput: { file_path: "/etc/passwd" } })).toBe(true);
    expect(holds(secrets.when!, { toolInput: { file_path: "/home/etc/passwd" } })).toBe(false);
  });

  it("a permission rule it cannot read is an error at the matcher (or the if) field", () => {
    const error = parseError(() =>
      importConfig(
        "claude-code",
        JSON.stringify({
          hooks: {
            PreToolUse: [
              { matcher: "Write(docs/(x)", hooks: [{ type: "command", command: "a" }] },
              { matcher: "Glob(src/**)", hooks: [{ type: "command", command: "b" }] },
              { matcher: "Bash", hooks: [{ type: "command", command: "c", if: "Write(x)" }] },
            ],
          },
        }),
      ),
    );
    expect(error.issues).toEqual([
      { path: "hooks.PreToolUse[0].matcher", message: expect.stringContaining("one permission rule per matcher") },
      { path: "hooks.PreToolUse[1].matcher", message: expect.stringContaining("does not know which input of Glob") },
      { path: "hooks.PreToolUse[2].hooks[0].if", message: 'the rule is about Write, the group\'s matcher "Bash" never is' },
    ]);
  });

  it("reads a file with a byte order mark, and says where $CLAUDE_PROJECT_DIR points", () => {
    const content = `\uFEFF${JSON.stringify({ hooks: { SubagentStart: hookOn('"$CLAUDE_PROJECT_DIR"/.claude/hooks/greet.sh') } })}`;
    const result = importConfig("claude-code", content);
    expect(result.hooks).toMatchObject([{ event: "agent.start", action: { command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/greet.sh' } }]);
    expect(result.warnings).toEqual([{ path: "hooks.SubagentStart[0].hooks[0].command", message: expect.stringMatching(/\$CLAUDE_PROJECT_DIR is that folder there/) }]);
  });
});

describe("claude-code detection", () => {
  it("knows a file that uses only newer events, one with a BOM, and settings without hooks", () => {
    expect(detectDialect(JSON.stringify({ hooks: { PostToolUseFailure: [] } })).dialect).toBe("claude-code");
    expect(detectDialect(`\uFEFF${JSON.stringify({ hooks: { SubagentStart: [] } })}`).dialect).toBe("claude-code");
    expect(detectDialect(JSON.stringify({ permissions: { allow: ["Bash(ls)"] }, model: "opus" })).dialect).toBe("claude-code");
    expect(detectDialect(JSON.stringify({ $schema: "https://json.schemastore.org/claude-code-settings.json" })).dialect).toBe("claude-code");
  });
});

describe("claude-code export: hooks Claude Code cannot run go through the bridge", () => {
  const hooks: HookSpecInput[] = [
    { id: "no-rm", event: "tool.pre", scope: "agent:coder", matcher: "Bash", action: { type: "block", reason: "no", denyIf: "rm -rf" } },
    { id: "ask-prds", event: "tool.pre", scope: "agent:coder", matcher: "Write", action: { type: "approve", timeoutMs: 1_800_000, onTimeout: "deny" } },
    { id: "lint-note", event: "tool.post", scope: "agent:coder", action: { type: "context", text: "Run the linter." } },
    { id: "tests", event: "turn.end", scope: "agent:coder", action: { type: "block", reason: "Run the tests first." } },
    { id: "page", event: "approval.requested", scope: "agent:coder", action: { type: "webhook", url: "https://hooks.example.com/p" } },
    { id: "bye", event: "session.end", scope: "agent:coder", action: { type: "slack", channel: "#ops", tokenSecret: "SLACK" } },
    { id: "fmt", event: "tool.post", scope: "agent:coder", matcher: "Write", action: { type: "command", command: "./fmt.sh" } },
  ];

  it("writes the bridge hook on each event, first, for the agent; an approve wait lengthens its timeouts", () => {
    const { content, warnings } = exportConfig("claude-code", { agents: [], hooks, schedules: [] }, { agent: "coder" });
    const bridge = (extra = "") => ({ hooks: [{ type: "command", command: `hookplane hook claude-code --agent coder${extra}`, ...(extra ? { timeout: 1815 } : {}) }] });
    expect(JSON.parse(content)).toEqual({
      hooks: {
        PostToolUse: [bridge(), { matcher: "Write", hooks: [{ type: "command", command: "./fmt.sh" }] }],
        PreToolUse: [bridge(" --timeout-ms 1805000")],
        PostToolUseFailure: [bridge()],
        Stop: [bridge()],
        SessionEnd: [bridge()],
        // Not bound by any hook: the session's start is bridged so its run is whole.
        SessionStart: [bridge()],
      },
    });
    expect(warnings).toEqual([{ path: "hooks", message: expect.stringContaining("it blocks when Hookplane cannot be reached (fail closed)") }]);
  });

  it("with bridge http: Claude Code's http hook to the ingest endpoint, and a warning that it fails open", () => {
    const { content, warnings } = exportConfig("claude-code", { agents: [], hooks: hooks.slice(0, 1), schedules: [] }, { agent: "coder", bridge: "http", hookplaneUrl: "https://hp.example.com/" });
    expect(JSON.parse(content).hooks.PreToolUse).toEqual([
      {
        hooks: [
          { type: "http", url: "https://hp.example.com/api/v1/ingest/claude-code", headers: { Authorization: "Bearer $HOOKPLANE_TOKEN", "X-Hookplane-Agent": "coder" }, allowedEnvVars: ["HOOKPLANE_TOKEN"] },
        ],
      },
    ]);
    expect(warnings[0].message).toMatch(/fail open/);
  });

  it("re-imported, the bridge is recognised and skipped: only the command hooks come back", () => {
    for (const bridge of ["command", "http"] as const) {
      const { content } = exportConfig("claude-code", { agents: [], hooks, schedules: [] }, { agent: "coder", bridge });
      const again = importConfig("claude-code", content, { agent: "coder" });
      expect(again.hooks.map((h) => h.action)).toEqual([{ type: "command", command: "./fmt.sh" }]);
      expect(again.warnings.every((w) => /the Hookplane bridge/.test(w.message))).toBe(true);
    }
  });
});
