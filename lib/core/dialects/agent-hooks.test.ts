/**
 * Codex, Gemini CLI, Copilot CLI and Cursor hook files. The Codex, Gemini and Copilot fixtures are
 * the files their real CLIs ran to record test/fixtures/bridges (every event each one knows);
 * Cursor's follows its published reference.
 */
import { describe, expect, it } from "vitest";
import type { HookSpecInput } from "@/lib/core/hooks/spec";
import { AGENT_HOOKS_FORMATS, type AgentHooksDialect } from "./agent-hooks-vocabulary";
import { detectDialect } from "./detect";
import { readFixture } from "./fixtures/fixture-files";
import { exportConfig, importConfig } from "./index";

const FILES: Record<AgentHooksDialect, string> = {
  codex: "codex/hooks.json",
  "gemini-cli": "gemini-cli/settings.json",
  copilot: "copilot/capture.json",
  cursor: "cursor/hooks.json",
};

describe("import: the files the real CLIs ran", () => {
  it.each(["codex", "gemini-cli", "copilot"] as const)("%s: every event is imported or named in a warning with why", (dialect) => {
    const result = importConfig(dialect, readFixture(FILES[dialect]));
    const format = AGENT_HOOKS_FORMATS[dialect];
    const mapped = Object.entries(format.events).filter(([, e]) => typeof e === "string");
    expect(result.hooks.map((h) => h.event).sort()).toEqual(
      // Copilot's capture bound two events its reference does not name (subagentStart, preCompact): warned as unknown.
      mapped.filter(([name]) => JSON.parse(readFixture(FILES[dialect])).hooks[name]).map(([, e]) => e).sort(),
    );
    for (const hook of result.hooks) expect(hook).toMatchObject({ scope: "global", onFailure: "continue", action: { type: "command" }, runsOn: "agent" });
    const unmapped = Object.keys(JSON.parse(readFixture(FILES[dialect])).hooks).filter((name) => typeof format.events[name] !== "string");
    for (const name of unmapped) expect(result.warnings.map((w) => w.path), name).toContain(`hooks.${name}`);
  });

  it("reads each format's timeout unit and matcher", () => {
    const gemini = importConfig("gemini-cli", JSON.stringify({ hooks: { BeforeTool: [{ matcher: "write_.*", hooks: [{ type: "command", command: "./g.sh", timeout: 1500, name: "guard" }] }] } }));
    expect(gemini.hooks).toEqual([{ id: "before-tool-1", name: "guard", dialect: "gemini-cli", event: "tool.pre", scope: "global", matcher: "write_.*", action: { type: "command", command: "./g.sh" }, timeoutMs: 1500, onFailure: "continue", runsOn: "agent" }]);
    const copilot = importConfig("copilot", JSON.stringify({ version: 1, hooks: { preToolUse: [{ type: "command", bash: "./c.sh", powershell: "./c.ps1", timeoutSec: 7 }] } }), { agent: "coder" });
    expect(copilot.hooks).toMatchObject([{ event: "tool.pre", scope: "agent:coder", timeoutMs: 7000, action: { command: "./c.sh" } }]);
    // It runs where Copilot runs it, with Copilot's own stdin: only the PowerShell variant has no place.
    expect(copilot.hooks[0].runsOn).toBe("agent");
    expect(copilot.warnings.map((w) => w.path)).toEqual(["hooks.preToolUse[0].powershell"]);
    const cursor = importConfig("cursor", readFixture(FILES.cursor));
    expect(cursor.hooks.map((h) => [h.event, h.matcher, h.timeoutMs])).toEqual([
      ["tool.pre", "Shell", 30_000],
      ["tool.pre", "Read", 5_000],
      ["tool.post", "Edit", 30_000],
    ]);
    expect(cursor.warnings.find((w) => w.path === "hooks.stop[0]")?.message).toBe("the Hookplane bridge (agent coder): the hooks it runs live in Hookplane; not imported as a command");
  });

  it("an unknown event is named with the nearest one; malformed entries fail at their path", () => {
    const result = importConfig("gemini-cli", JSON.stringify({ hooks: { BeforeTools: [{ hooks: [{ type: "command", command: "x" }] }] } }));
    expect(result.warnings[0]).toEqual({ path: "hooks.BeforeTools", message: expect.stringContaining('did you mean "BeforeTool"'), enforcement: "not_imported" });
    expect(() => importConfig("copilot", JSON.stringify({ version: 1, hooks: { preToolUse: [{ type: "command", timeoutSec: "9" }] } }))).toThrow();
  });
});

/** The hooks each format can write natively, with timeouts in its own unit. */
function expressible(dialect: AgentHooksDialect): HookSpecInput[] {
  const format = AGENT_HOOKS_FORMATS[dialect];
  return Object.entries(format.exportEvents).map(([event], i) => ({
    id: `h${i}`,
    event,
    scope: "global",
    ...(format.toolEvents.size > 0 && (event === "tool.pre" || event === "tool.post") ? { matcher: "Bash" } : {}),
    ...(dialect === "cursor" && event === "tool.pre" ? { matcher: "Shell" } : {}),
    ...(dialect === "cursor" && event === "tool.post" ? { matcher: "Shell" } : {}),
    action: { type: "command", command: `./hooks/${event}.sh` },
    timeoutMs: i % 2 === 0 ? format.defaultTimeoutMs : 3 * format.timeoutUnitMs * 1000,
    onFailure: "continue",
  }));
}

describe("export", () => {
  it.each(["codex", "gemini-cli", "copilot", "cursor"] as const)("%s: round-trips every hook it can express, ids aside", (dialect) => {
    const hooks = expressible(dialect);
    const exported = exportConfig(dialect, { agents: [], hooks, schedules: [] });
    expect(exported.warnings).toEqual([]);
    const again = importConfig(dialect, exported.content);
    const strip = (list: HookSpecInput[]) => list.map(({ id: _id, ...rest }) => rest);
    // Re-imported, each hook also says which agent's contract it keeps.
    expect(strip(again.hooks)).toEqual(strip(hooks).map((h) => ({ ...h, dialect, runsOn: "agent" })));
  });

  const guards: HookSpecInput[] = [
    { id: "no-rm", event: "tool.pre", scope: "agent:coder", action: { type: "block", reason: "no", denyIf: "rm -rf" } },
    { id: "ask", event: "tool.pre", scope: "agent:coder", action: { type: "approve", timeoutMs: 1_800_000, onTimeout: "deny" } },
  ];

  it("hooks an agent cannot run become its bridge, with the session events, and a wait as long as the approval", () => {
    const gemini = JSON.parse(exportConfig("gemini-cli", { agents: [], hooks: guards, schedules: [] }, { agent: "coder" }).content);
    expect(gemini.hooks.BeforeTool).toEqual([{ hooks: [{ type: "command", command: "hookplane hook gemini-cli --agent coder --timeout-ms 1805000", timeout: 1_815_000 }] }]);
    expect(Object.keys(gemini.hooks).sort()).toEqual(["AfterAgent", "BeforeTool", "SessionEnd", "SessionStart"]);
    const copilot = JSON.parse(exportConfig("copilot", { agents: [], hooks: guards, schedules: [] }, { agent: "coder" }).content);
    expect(copilot).toMatchObject({ version: 1, hooks: { preToolUse: [{ type: "command", bash: "hookplane hook copilot --agent coder --event preToolUse --timeout-ms 1805000", timeoutSec: 1815 }] } });
    expect(copilot.hooks.agentStop).toEqual([{ type: "command", bash: "hookplane hook copilot --agent coder --event agentStop" }]);
    const cursor = JSON.parse(exportConfig("cursor", { agents: [], hooks: guards.slice(0, 1), schedules: [] }, { agent: "coder" }).content);
    expect(Object.keys(cursor.hooks).sort()).toEqual(["beforeMCPExecution", "beforeReadFile", "beforeShellExecution", "stop"]);
  });

  it.each(["codex", "gemini-cli", "copilot", "cursor"] as const)("%s: with recordSessions, an agent with no hook yet still has its session events bridged", (dialect) => {
    const empty = { agents: [], hooks: [], schedules: [] };
    expect(JSON.parse(exportConfig(dialect, empty, { agent: "coder" }).content).hooks).toEqual({});
    const recorded = JSON.parse(exportConfig(dialect, empty, { agent: "coder", recordSessions: true }).content).hooks;
    expect(Object.keys(recorded).sort()).toEqual([...AGENT_HOOKS_FORMATS[dialect].sessionEvents].sort());
    expect(JSON.stringify(recorded)).toContain(`hookplane hook ${dialect} --agent coder`);
    const config = { agents: [], hooks: guards, schedules: [] };
    expect(exportConfig(dialect, config, { agent: "coder", recordSessions: true })).toEqual(exportConfig(dialect, config, { agent: "coder" }));
  });

  it.each(["codex", "gemini-cli", "copilot", "cursor"] as const)("%s: re-imported, the bridge is skipped", (dialect) => {
    const { content, warnings } = exportConfig(dialect, { agents: [], hooks: guards, schedules: [] }, { agent: "coder" });
    expect(warnings.at(-1)!.message).toMatch(/fail closed/);
    const again = importConfig(dialect, content, { agent: "coder" });
    expect(again.hooks).toEqual([]);
    expect(again.warnings.every((w) => /the Hookplane bridge \(agent coder\)/.test(w.message))).toBe(true);
  });
});

describe("detection", () => {
  it.each(["gemini-cli", "copilot", "cursor"] as const)("%s files are told apart by their own events", (dialect) => {
    expect(detectDialect(readFixture(FILES[dialect])).dialect).toBe(dialect);
  });

  it("Codex's hooks.json is Claude Code's format and reads as claude-code", () => {
    expect(detectDialect(readFixture(FILES.codex)).dialect).toBe("claude-code");
    expect(importConfig("claude-code", readFixture(FILES.codex)).hooks.length).toBeGreaterThan(0);
  });
});
