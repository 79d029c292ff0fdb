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
      { id: "pre-tool-use-1", dialect: "claude-code", event: "tool.pre", scope: "global", matcher: "Bash", action: command("./hooks/check-bash.sh"), timeoutMs: 30_000, onFailure: "continue", runsOn: "agent" },
      { id: "pre-tool-use-3", dialect: "claude-code", event: "tool.pre", scope: "global", matcher: "Write|Edit", action: command("jq -r .tool_input.file_path >> edits.log"), timeoutMs: 5_000, onFailure: "continue", runsOn: "agent" },
      { id: "post-tool-use-1", dialect: "claude-code", event: "tool.post", scope: "global", matcher: "*", action: command("./hooks/audit.sh"), timeoutMs: 600_000, onFailure: "continue", runsOn: "agent" },
      { id: "user-prompt-submit-1", dialect: "claude-code", event: "user.prompt.submit", scope: "global", action: command("./hooks/prompt-guard.sh"), timeoutMs: 10_000, onFailure: "continue", runsOn: "agent" },
      // SessionStart's matcher "startup" is the source: a when on it, so a /clear or a fork does not run it.
      { id: "session-start-1", dialect: "claude-code", event: "session.start", scope: "global", when: "source: /^(?:startup)$/", action: command("cat CONTEXT.md"), timeoutMs: 600_000, onFailure: "continue", runsOn: "agent" },
      { id: "stop-1", dialect: "claude-code", event: "turn.end", scope: "global", action: command("./hooks/on-stop.sh"), timeoutMs: 600_000, onFailure: "continue", runsOn: "agent" },
      { id: "subagent-stop-1", dialect: "claude-code", event: "agent.stop", scope: "global", action: command("./hooks/on-subagent-stop.sh"), timeoutMs: 600_000, onFailure: "continue", runsOn: "agent" },
      { id: "session-end-1", dialect: "claude-code", event: "session.end", scope: "global", action: command("./hooks/archive.sh"), timeoutMs: 120_000, onFailure: "continue", runsOn: "agent" },
    ]);
    expect(result.agents).toEqual([]);
    expect(result.schedules).toEqual([]);
  });

  it("reports what has no canonical counterpart, by path", () => {
    const paths = result.warnings.map((w) => w.path);
    expect(paths).toEqual(
      expect.arrayContaining(["hooks.Notification", "hooks.PreCompact", "hooks.PreToolUse[0].hooks[1]", "permissions"]),
    );
    expect(paths).not.toContain("hooks.SessionStart[0].matcher");
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
        runsOn: "agent",
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
    expect(result.warnings[0]).toEqual({ path: "hooks.PreToolUser", message: expect.stringContaining('did you mean "PreToolUse"'), enforcement: "not_imported" });
  });

  it("warns about non-command hook types instead of dropping them silently", () => {
    const result = importConfig("claude-code", JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "prompt", prompt: "Done?" }] }] } }));
    expect(result.hooks).toEqual([]);
    // The import preview lists it as a hook of the file that is not enforced.
    expect(result.warnings).toEqual([{ path: "hooks.Stop[0].hooks[0].type", message: expect.stringMatching(/"prompt" hooks/), enforcement: "not_imported" }]);
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
    // Back from Claude Code's settings, each command keeps running where Claude Code runs it.
    expect(importConfig("claude-code", exported.content).hooks).toEqual(hooks.map((hook) => ({ ...hook, dialect: "claude-code", runsOn: "agent" })));
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
      { ...base, id: "keep-working", dialect: "claude-code", event: "turn.end", onFailure: "block" },
      { ...base, id: "outcomes", dialect: "claude-code", event: "session.end", onOutcomes: ["failed"] },
    ];
    const { content, warnings } = exportConfig("claude-code", { agents: [], hooks, schedules: [] });
    expect(warnings.map((w) => w.path)).toEqual([
      "hooks.metering.event",
      "hooks.odd-timeout.timeoutMs",
      "hooks.off.enabled",
      // Claude Code ignores onFailure on Stop: only there is a fail-closed command not expressible.
      "hooks.keep-working.onFailure",
      "hooks.outcomes.onOutcomes",
      // The block hook is bridged: global, so the bridge reads the agent from HOOKPLANE_AGENT.
      "hooks",
      "hooks",
    ]);
    const written = JSON.parse(content).hooks;
    // The bridge on a gating event fails closed when it cannot run at all (onFailure, 2.1.295+).
    expect(written.PreToolUse[0]).toEqual({ hooks: [{ type: "command", command: "hookplane hook claude-code", onFailure: "block" }] });
    expect(Object.keys(written)).toEqual(["PreToolUse", "Stop", "SessionEnd", "SessionStart"]);
    expect(written.PreToolUse[1].hooks).toEqual([
      { type: "command", command: "x", timeout: 2 },
      { type: "command", command: "x", onFailure: "block" },
    ]);
    // On Stop the bridge and the command stay without onFailure: Claude Code ignores it there.
    expect(written.Stop).toEqual([{ hooks: [{ type: "command", command: "hookplane hook claude-code" }] }, { hooks: [{ type: "command", command: "x" }] }]);
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

  it("a corrupt permission rule is an error at its field; one Claude Code reads but Hookplane cannot is refused with a warning, never widened", () => {
    const error = parseError(() =>
      importConfig("claude-code", JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Write(docs/(x)", hooks: [{ type: "command", command: "a" }] }] } })),
    );
    expect(error.issues).toEqual([{ path: "hooks.PreToolUse[0].matcher", message: expect.stringContaining("one permission rule per matcher") }]);
    expect(parseError(() => importConfig("claude-code", JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "c", if: "Bash()" }] }] } }))).issues).toEqual([
      { path: "hooks.PreToolUse[0].hooks[0].if", message: expect.stringContaining("empty specifier") },
    ]);

    const result = importConfig(
      "claude-code",
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: "Glob(src/**)", hooks: [{ type: "command", command: "b" }] },
            { matcher: "Bash", hooks: [{ type: "command", command: "c", if: "Write(x)" }, { type: "command", command: "d", if: "WebFetch(example.com)" }, { type: "command", command: "e" }] },
            { matcher: "mcp__.*", hooks: [{ type: "command", command: "f", if: "Bash(ls)" }] },
          ],
        },
      }),
    );
    // Only the hooks whose rule held: e unconditioned, nothing wider than the file said.
    expect(result.hooks.map((h) => [(h.action as { command: string }).command, h.matcher, h.when])).toEqual([["e", "Bash", undefined]]);
    expect(result.warnings).toEqual([
      { path: "hooks.PreToolUse[0].matcher", message: expect.stringMatching(/does not know which input of Glob .*not imported \(without the rule they would run on every Glob call\)/), enforcement: "not_imported" },
      // Claude Code never runs a hook whose rule is about another tool than its group's: nothing to enforce.
      { path: "hooks.PreToolUse[1].hooks[0].if", message: 'the rule is about Write, the group\'s matcher "Bash" never is: Claude Code never runs this hook; not imported' },
      { path: "hooks.PreToolUse[1].hooks[1].if", message: expect.stringMatching(/WebFetch rules name a domain.*not imported/), enforcement: "not_imported" },
      { path: "hooks.PreToolUse[2].hooks[0].if", message: expect.stringContaining('the group\'s matcher "mcp__.*" never is') },
    ]);
  });

  it("reads a file with a byte order mark; a hook naming $CLAUDE_PROJECT_DIR runs in that project, on the developer's machine", () => {
    const content = `\uFEFF${JSON.stringify({ hooks: { SubagentStart: hookOn('"$CLAUDE_PROJECT_DIR"/.claude/hooks/greet.sh') } })}`;
    const result = importConfig("claude-code", content);
    expect(result.hooks).toMatchObject([{ event: "agent.start", action: { command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/greet.sh' }, runsOn: "agent" }]);
    expect(result.warnings).toEqual([]);
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
    const bridge = (extra = "", gate = false) => ({
      hooks: [{ type: "command", command: `hookplane hook claude-code --agent coder${extra}`, ...(extra ? { timeout: 1815 } : {}), ...(gate ? { onFailure: "block" } : {}) }],
    });
    expect(JSON.parse(content)).toEqual({
      hooks: {
        PostToolUse: [bridge(), { matcher: "Write", hooks: [{ type: "command", command: "./fmt.sh" }] }],
        // Only where a refusal stops something does a bridge that cannot run refuse (onFailure block).
        PreToolUse: [bridge(" --timeout-ms 1805000", true)],
        PostToolUseFailure: [bridge()],
        Stop: [bridge()],
        SessionEnd: [bridge()],
        // Not bound by any hook: the session's start is bridged so its run is whole.
        SessionStart: [bridge()],
      },
    });
    expect(warnings).toEqual([{ path: "hooks", message: expect.stringContaining("it blocks when Hookplane cannot be reached (fail closed)") }]);
  });

  it("with bridge http: Claude Code's http hook to the ingest endpoint, failing closed on gating events (2.1.295+)", () => {
    const { content, warnings } = exportConfig("claude-code", { agents: [], hooks: hooks.slice(0, 1), schedules: [] }, { agent: "coder", bridge: "http", hookplaneUrl: "https://hp.example.com/" });
    const http = { type: "http", url: "https://hp.example.com/api/v1/ingest/claude-code", headers: { Authorization: "Bearer $HOOKPLANE_TOKEN", "X-Hookplane-Agent": "coder" }, allowedEnvVars: ["HOOKPLANE_TOKEN"] };
    expect(JSON.parse(content).hooks).toEqual({
      PreToolUse: [{ hooks: [{ ...http, onFailure: "block" }] }],
      // A session's start, turn end and end record the run: Hookplane being away must not stop them.
      SessionStart: [{ hooks: [http] }],
      Stop: [{ hooks: [http] }],
      SessionEnd: [{ hooks: [http] }],
    });
    expect(warnings[0].message).toMatch(/fail closed\); older versions ignore onFailure/);
  });

  it("with recordSessions, an agent with no hook yet still has its sessions bridged; with hooks, the file is the same", () => {
    const empty = { agents: [], hooks: [], schedules: [] };
    expect(JSON.parse(exportConfig("claude-code", empty, { agent: "coder" }).content)).toEqual({ hooks: {} });
    const recorded = JSON.parse(exportConfig("claude-code", empty, { agent: "coder", recordSessions: true }).content);
    const bridge = { hooks: [{ type: "command", command: "hookplane hook claude-code --agent coder" }] };
    expect(recorded).toEqual({ hooks: { SessionStart: [bridge], Stop: [bridge], SessionEnd: [bridge] } });
    const config = { agents: [], hooks, schedules: [] };
    expect(exportConfig("claude-code", config, { agent: "coder", recordSessions: true })).toEqual(exportConfig("claude-code", config, { agent: "coder" }));
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

describe("claude-code import: Claude Code 2.1.332", () => {
  const holds = (when: string, data: Record<string, unknown>) => compileWhen(when).check(data) === undefined;

  it("knows the newer events (model switches, added folders, skills' shell lines) and says why each is not imported", () => {
    const newer = ["PreModelSwitch", "PostModelSwitch", "DirectoryAdded", "PreSkillShellCommand"];
    const hooks = Object.fromEntries(newer.map((e) => [e, [{ hooks: [{ type: "command", command: `./${e}.sh` }] }]]));
    const result = importConfig("claude-code", JSON.stringify({ hooks }));
    expect(result.hooks).toEqual([]);
    expect(result.warnings.map((w) => w.path)).toEqual(newer.map((e) => `hooks.${e}`));
    expect(result.warnings.every((w) => /its hooks were not imported$/.test(w.message) && !/unknown/.test(w.message))).toBe(true);
    // The import preview lists each as a hook of the file that is not enforced.
    expect(result.warnings.map((w) => w.enforcement)).toEqual(newer.map(() => "not_imported"));
    expect(result.warnings[3].message).toMatch(/not only skills'/);
    expect(CLAUDE_CODE_EVENTS).toHaveLength(34);
  });

  it("onFailure block is carried where Claude Code honours it, and reported where it ignores it", () => {
    const result = importConfig(
      "claude-code",
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh", onFailure: "block" }, { type: "command", command: "./log.sh", onFailure: "continue" }] }],
          UserPromptSubmit: [{ hooks: [{ type: "command", command: "./bg.sh", onFailure: "block", async: true }] }],
          Stop: [{ hooks: [{ type: "command", command: "./tests.sh", onFailure: "block" }] }],
        },
      }),
    );
    expect(result.hooks.map((h) => [h.id, h.onFailure])).toEqual([
      ["pre-tool-use-1", "block"],
      ["pre-tool-use-2", "continue"],
      ["user-prompt-submit-1", "continue"],
      ["stop-1", "continue"],
    ]);
    const messages = Object.fromEntries(result.warnings.map((w) => [w.path, w.message]));
    expect(messages["hooks.Stop[0].hooks[0].onFailure"]).toMatch(/ignores onFailure "block" on Stop/);
    expect(messages["hooks.UserPromptSubmit[0].hooks[0].onFailure"]).toMatch(/async hooks/);
    // Exported again, the guard still fails closed.
    const exported = JSON.parse(exportConfig("claude-code", { agents: [], hooks: result.hooks.slice(0, 2), schedules: [] }).content);
    expect(exported.hooks.PreToolUse).toEqual([{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh", onFailure: "block" }, { type: "command", command: "./log.sh" }] }]);
  });

  it("a corrupt onFailure is refused at its path", () => {
    const error = parseError(() => importConfig("claude-code", JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "x", onFailure: "ignore" }] }] } })));
    expect(error.issues).toEqual([{ path: "hooks.PreToolUse[0].hooks[0].onFailure", message: 'expected "continue" or "block", got "ignore"' }]);
  });

  it("exec form: the program and args become quoted shell words, path placeholders still filled in; PowerShell hooks are reported", () => {
    const result = importConfig(
      "claude-code",
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                { type: "command", command: "${CLAUDE_PLUGIN_ROOT}/bin/guard", args: ["--mode", "it's strict", "${CLAUDE_PROJECT_DIR}/policy $1.json", ""] },
                { type: "command", command: "./guard.ps1", shell: "powershell" },
              ],
            },
          ],
        },
      }),
    );
    expect(result.hooks.map((h) => (h.action as { command: string }).command)).toEqual([
      `"\${CLAUDE_PLUGIN_ROOT}"'/bin/guard' --mode 'it'\\''s strict' "\${CLAUDE_PROJECT_DIR}"'/policy $1.json' ''`,
    ]);
    expect(result.warnings.map((w) => w.path)).toEqual(["hooks.PreToolUse[0].hooks[1].shell"]);
    expect(result.warnings[0].message).toMatch(/PowerShell .* not imported/);
  });

  it("SessionStart's source (fork included), SessionEnd's reason and StopFailure's error narrow the hook with a when; export writes the matcher back", () => {
    const content = JSON.stringify({
      hooks: {
        SessionStart: [
          { matcher: "fork", hooks: [{ type: "command", command: "./forked.sh" }] },
          { matcher: "startup|resume", hooks: [{ type: "command", command: "./started.sh" }] },
          { matcher: "resume|compact", hooks: [{ type: "command", command: "./resumed.sh" }] },
          { matcher: "startup|clear|fork", hooks: [{ type: "command", command: "./any.sh" }] },
        ],
        SessionEnd: [{ matcher: "logout|prompt_input_exit", hooks: [{ type: "command", command: "./bye.sh" }] }],
        StopFailure: [{ matcher: "rate_limit", hooks: [{ type: "command", command: "./slow-down.sh" }] }],
      },
    });
    const result = importConfig("claude-code", content);
    expect(result.hooks.map((h) => [h.event, h.matcher, h.when])).toEqual([
      ["session.start", undefined, "source: /^(?:fork)$/"],
      ["session.start", undefined, "source: /^(?:startup)$/"],
      ["session.start", undefined, undefined],
      ["session.end", undefined, "reason: /^(?:logout|prompt_input_exit)$/"],
      ["error", undefined, "message: /^(?:rate_limit)$/"],
    ]);
    expect(result.warnings).toEqual([{ path: "hooks.SessionStart[2].matcher", message: expect.stringMatching(/never runs at a session's startup, \/clear or fork/), enforcement: "not_imported" }]);
    const [forked, started, , bye] = result.hooks;
    expect(holds(forked.when!, { source: "fork" })).toBe(true);
    expect(holds(forked.when!, { source: "startup" })).toBe(false);
    expect(holds(started.when!, { source: "clear" })).toBe(false);
    // A session.start without a source (not from Claude Code) does not run a hook meant for some sources only.
    expect(holds(started.when!, {})).toBe(false);
    expect(holds(bye.when!, { reason: "logout" })).toBe(true);
    expect(holds(bye.when!, { reason: "clear" })).toBe(false);

    const exported = exportConfig("claude-code", result);
    expect(exported.warnings).toEqual([]);
    const written = JSON.parse(exported.content).hooks;
    expect(written.SessionStart.map((g: { matcher?: string }) => g.matcher)).toEqual(["fork", "startup", undefined]);
    expect(written.SessionEnd[0].matcher).toBe("logout|prompt_input_exit");
    expect(written.StopFailure[0].matcher).toBe("rate_limit");
    const again = importConfig("claude-code", exported.content);
    expect(again.hooks.map(({ id: _id, ...h }) => h)).toEqual(result.hooks.map(({ id: _id, ...h }) => h));
  });

  it("a plugin hooks.json with SessionStart written twice: both lists are imported, and the warning says Claude Code ran only the last", () => {
    const content = `{
  "description": "Session helpers",
  "hooks": {
    "SessionStart": [{ "hooks": [{ "type": "command", "command": "./inject-id.sh" }, { "type": "command", "command": "./context.sh", "timeout": 5 }] }],
    "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "./guard.sh", "timeout": 3, "timeout": 4 }] }],
    "SessionStart": [{ "matcher": "startup", "hooks": [{ "type": "command", "command": "./banner.sh" }] }]
  }
}`;
    const result = importConfig("claude-code", content);
    expect(result.hooks.map((h) => [h.event, (h.action as { command: string }).command, h.when, h.timeoutMs])).toEqual([
      ["session.start", "./inject-id.sh", undefined, 600_000],
      ["session.start", "./context.sh", undefined, 5_000],
      ["session.start", "./banner.sh", "source: /^(?:startup)$/", 600_000],
      ["tool.pre", "./guard.sh", undefined, 4_000],
    ]);
    const messages = Object.fromEntries(result.warnings.map((w) => [w.path, w.message]));
    expect(messages["hooks.SessionStart"]).toMatch(/written 2 times in hooks: JSON keeps only the last, so Claude Code ran only its last list \(1 entry\); all 2 lists are imported/);
    expect(messages['hooks.PreToolUse[0].hooks[0].timeout']).toMatch(/written 2 times: JSON keeps only the last value/);
    expect(messages.description).toMatch(/plugin's description/);
  });
});

describe("claude-code import: http hooks", () => {
  it("become webhooks (Claude Code POSTs the input and reads the answer; so does Hookplane's webhook); allowed header variables become secrets; export writes them back", () => {
    const content = JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              {
                type: "http",
                url: "https://policy.example.com/claude/pre-tool-use",
                headers: { Authorization: "Bearer $POLICY_TOKEN", "X-Team": "${TEAM}-x", "X-Other": "$NOT_ALLOWED" },
                allowedEnvVars: ["POLICY_TOKEN", "TEAM"],
                timeout: 5,
                onFailure: "block",
                if: "Bash(git push*)",
              },
            ],
          },
        ],
      },
    });
    const result = importConfig("claude-code", content);
    expect(result.hooks).toEqual([
      {
        id: "pre-tool-use-1",
        dialect: "claude-code",
        event: "tool.pre",
        scope: "global",
        matcher: "Bash",
        when: "toolInput.command: /^git push.*$/",
        action: { type: "webhook", url: "https://policy.example.com/claude/pre-tool-use", method: "POST", headers: { Authorization: "Bearer ${secret:POLICY_TOKEN}", "X-Team": "${secret:TEAM}-x", "X-Other": "" } },
        timeoutMs: 5_000,
        onFailure: "block",
      },
    ]);
    const messages = result.warnings.map((w) => `${w.path}: ${w.message}`);
    expect(messages).toEqual([
      expect.stringMatching(/headers\.Authorization: .*the secret "POLICY_TOKEN"/),
      expect.stringMatching(/headers\.X-Team: .*the secret "TEAM"/),
      expect.stringMatching(/headers\.X-Other: \$NOT_ALLOWED is not in allowedEnvVars: Claude Code sends it empty/),
    ]);
    // No warning says it was not imported, and none marks it as not enforced.
    expect(result.warnings.some((w) => w.enforcement)).toBe(false);

    const exported = exportConfig("claude-code", { agents: [], hooks: [{ ...result.hooks[0], when: undefined }], schedules: [] });
    expect(JSON.parse(exported.content).hooks.PreToolUse).toEqual([
      {
        matcher: "Bash",
        hooks: [
          {
            type: "http",
            url: "https://policy.example.com/claude/pre-tool-use",
            headers: { Authorization: "Bearer ${POLICY_TOKEN}", "X-Team": "${TEAM}-x", "X-Other": "" },
            allowedEnvVars: ["POLICY_TOKEN", "TEAM"],
            timeout: 5,
            onFailure: "block",
          },
        ],
      },
    ]);
    const again = importConfig("claude-code", exported.content);
    expect(again.hooks[0].action).toEqual(result.hooks[0].action);
  });

  it("a local address is warned about: the server makes the request now, not the developer's machine", () => {
    const local = (url: string) =>
      importConfig("claude-code", JSON.stringify({ hooks: { PostToolUse: [{ hooks: [{ type: "http", url }] }] } })).warnings.filter((w) => w.path.endsWith(".url"));
    for (const url of ["http://localhost:8080/hook", "http://127.0.0.1/x", "http://[::1]:9/x", "http://policy-svc:80/x"]) {
      expect(local(url), url).toEqual([{ path: "hooks.PostToolUse[0].hooks[0].url", message: expect.stringMatching(/from the developer's machine; Hookplane's server makes it now/) }]);
    }
    expect(local("https://policy.example.com/hook")).toEqual([]);
  });

  it("a webhook of another dialect still goes through the bridge (Hookplane runs it with its secrets)", () => {
    const hook: HookSpecInput = { id: "page", event: "tool.pre", scope: "global", action: { type: "webhook", url: "https://hooks.example.com/p" } };
    const written = JSON.parse(exportConfig("claude-code", { agents: [], hooks: [hook], schedules: [] }).content).hooks;
    expect(written.PreToolUse).toEqual([{ hooks: [{ type: "command", command: "hookplane hook claude-code", onFailure: "block" }] }]);
  });

  it("an http hook without a url, or with a header that is not text, is refused at its path", () => {
    const error = parseError(() =>
      importConfig("claude-code", JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "http" }, { type: "http", url: "https://x.example.com", headers: { A: 1 } }] }] } })),
    );
    expect(error.issues).toEqual([
      { path: "hooks.Stop[0].hooks[0].url", message: "is required" },
      { path: "hooks.Stop[0].hooks[1].headers.A", message: "a header value is text" },
    ]);
  });
});

describe("claude-code export: permission rules go back as if", () => {
  it("a hook read from a rule-form matcher or an if is written with that rule as its if: as narrow on the developer's machine as it was", () => {
    const rules = ["Write(docs/prds/**)", "Bash(npm run test:*)", "WebFetch(domain:example.com)", "Edit(//etc/**)", "Bash(git push*)", "Agent(Explore)", "Read(src/*.ts)", "Write(./a?.md)"];
    const content = JSON.stringify({ hooks: { PreToolUse: rules.map((rule, i) => ({ matcher: rule.slice(0, rule.indexOf("(")), hooks: [{ type: "command", command: `./check-${i}.sh`, if: rule }] })) } });
    const imported = importConfig("claude-code", content);
    expect(imported.hooks).toHaveLength(rules.length);
    const exported = exportConfig("claude-code", imported);
    expect(exported.warnings).toEqual([]);
    const written = JSON.parse(exported.content).hooks.PreToolUse.flatMap((g: { hooks: { if?: string }[] }) => g.hooks.map((h) => h.if));
    // `./a?.md` is read as `a?.md` (relative): the rule written back says the same.
    expect(written).toEqual([...rules.slice(0, 7), "Write(a?.md)"]);
    const again = importConfig("claude-code", exported.content);
    expect(again.hooks.map(({ id: _id, ...h }) => h)).toEqual(imported.hooks.map(({ id: _id, ...h }) => h));
  });

  it("a when that no permission rule gives is not written as one: warned, as before", () => {
    const hook: HookSpecInput = { id: "x", event: "tool.pre", scope: "global", matcher: "Bash", when: "toolInput.command: /rm/", action: { type: "command", command: "./x.sh" }, onFailure: "continue" };
    const { content, warnings } = exportConfig("claude-code", { agents: [], hooks: [hook], schedules: [] });
    expect(JSON.parse(content).hooks.PreToolUse[0].hooks[0].if).toBeUndefined();
    expect(warnings).toEqual([{ path: "hooks.x.when", message: expect.stringContaining("no condition but a permission rule") }]);
  });
});

describe("reading a cut-off settings file", () => {
  it("says the JSON ends early, with the line where it stops", () => {
    let caught: unknown;
    try {
      importConfig("claude-code", '{\n  "hooks": {\n    "PreToolUse": [');
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ issues: [{ path: "", line: 3, message: expect.stringMatching(/^JSON ends early at line 3: /) }] });
  });
});
