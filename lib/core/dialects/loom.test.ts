import { describe, expect, it } from "vitest";
import type { DialectConfig } from "./index";
import { exportConfig, importConfig } from "./index";
import { readFixture } from "./fixtures/fixture-files";
import { parseError } from "@/test/dialect-harness";

const loom = (value: unknown) => importConfig("loom", JSON.stringify(value));

describe("loom import: agent.json", () => {
  it("the shop profile: audit webhook, approval with tool globs, archive, error log", () => {
    const result = importConfig("loom", readFixture("loom/shop.agent.json"));
    // Loom's own defaults (its profile schema) are what the agent runs with: 100 turns, 30 minutes, every tool.
    expect(result.agents).toEqual([{ name: "shop", model: "openai:gpt-5.5", maxTurns: 100, timeoutMs: 1_800_000, tools: ["*"] }]);
    expect(result.hooks).toEqual([
      {
        id: "on-tool-call-1",
        dialect: "loom",
        event: "tool.pre",
        scope: "agent:shop",
        action: { type: "webhook", url: "https://ops.example.com/audit", method: "POST", headers: {} },
        onFailure: "continue",
      },
      {
        id: "on-tool-call-2",
        dialect: "loom",
        event: "tool.pre",
        scope: "agent:shop",
        action: { type: "approve", timeoutMs: 1_800_000, onTimeout: "deny", tools: ["send_*", "shell_execute"] },
        onFailure: "block",
      },
      { id: "on-complete-1", dialect: "loom", event: "session.end", scope: "agent:shop", action: { type: "save_json", path: "runs/log.jsonl" }, onFailure: "continue" },
      { id: "on-error-1", dialect: "loom", event: "error", scope: "agent:shop", action: { type: "log" }, onFailure: "continue" },
    ]);
    expect(result.warnings).toEqual([{ path: "hooks.onError[0].level", message: expect.stringContaining('"error" ignored') }]);
  });

  it("every bucket, the 5 s fail-closed command, the profile's approval timeout, agent fields", () => {
    const result = importConfig("loom", readFixture("loom/full-profile.agent.json"));
    expect(result.agents).toEqual([
      {
        name: "ops",
        description: "Watches deploys and asks before risky commands",
        model: "anthropic:claude-sonnet-4-6",
        instructions: "You help the ops team.",
        maxTurns: 40,
        tools: ["readFile", "shell_execute"],
        timeoutMs: 30 * 60 * 1000,
        budgetUsd: 5,
      },
    ]);
    expect(result.hooks.map((h) => [h.id, h.event, h.action.type, h.timeoutMs, h.onFailure])).toEqual([
      ["on-start-1", "session.start", "log", undefined, "continue"],
      ["on-tool-call-1", "tool.pre", "command", 5000, "block"],
      ["on-tool-call-2", "tool.pre", "approve", undefined, "block"],
      ["on-tool-end-1", "tool.post", "save_json", undefined, "continue"],
      ["on-model-call-1", "model.pre", "log", undefined, "continue"],
      ["on-model-end-1", "model.post", "webhook", undefined, "continue"],
      ["on-complete-1", "session.end", "log", undefined, "continue"],
      ["on-error-1", "error", "webhook", undefined, "continue"],
    ]);
    expect(result.hooks[2].action).toEqual({ type: "approve", timeoutMs: 600_000, onTimeout: "deny" });
    // The command's warning: Loom passes it the whole process environment, Hookplane does not.
    // preset coding with an allow list: the allowed tools of the preset (deny browser_* removes none of them).
    expect(result.warnings.map((w) => w.path)).toEqual(["displayName", "security.permissionMode", "hooks.onToolCall[0].command"]);
  });
});

describe("loom import: tool presets as Loom's assembler builds them", () => {
  const toolsOf = (tools: unknown, extra: Record<string, unknown> = {}) => importConfig("loom", JSON.stringify({ name: "p", tools, ...extra }));

  it("coding and readonly are their tools (subagents add agent_spawn and orchestrate); allow keeps the matching ones; deny wins", () => {
    expect(toolsOf({ preset: "readonly" }).agents[0].tools).toEqual(["readFile", "listFiles", "glob", "grep"]);
    expect(toolsOf({ preset: "coding" }).agents[0].tools).toEqual(["readFile", "writeFile", "editFile", "listFiles", "glob", "grep", "shell_execute", "request_credential", "plan_draft", "plan_submit"]);
    expect(toolsOf({ preset: "readonly" }, { subagents: [{ name: "helper" }] }).agents[0].tools).toEqual(["readFile", "listFiles", "glob", "grep", "agent_spawn", "orchestrate"]);
    // allow is globs over the preset's tools ("." matches "_" too); a tool outside the preset is not added.
    expect(toolsOf({ preset: "readonly", allow: ["read*", "shell.*", "web_fetch"] }).agents[0].tools).toEqual(["readFile"]);
    // Naming a plan tool in allow brings the plan tools in (Loom's planExplicitlyAllowed), then allow filters.
    expect(toolsOf({ preset: "readonly", allow: ["readFile", "plan_draft"] }).agents[0].tools).toEqual(["readFile", "plan_draft"]);
    expect(toolsOf({ preset: "coding", deny: ["shell_*", "plan.*"] }).agents[0].tools).toEqual(["readFile", "writeFile", "editFile", "listFiles", "glob", "grep", "request_credential"]);
    const quiet = toolsOf({ preset: "coding", allow: [], deny: [] });
    expect(quiet.warnings.map((w) => w.path)).not.toContain("tools.preset");
  });

  it("full with a deny list keeps all tools, and says so (a Hookplane agent cannot list what it lacks); with an allow list the deny is applied", () => {
    const all = toolsOf({ preset: "full", deny: ["shell_execute"] });
    expect(all.agents[0].tools).toEqual(["*"]);
    // Listed in the import preview as not enforced as the file says.
    expect(all.warnings).toContainEqual({ path: "tools.deny", message: expect.stringMatching(/removes "shell_execute" from every tool; .* keeps all tools/), enforcement: "changed" });
    expect(toolsOf({ allow: ["readFile", "shell_execute"], deny: ["shell_*"] }).agents[0].tools).toEqual(["readFile"]);
  });

  it("carried presets export as Loom reads them back: the same tools", () => {
    const imported = toolsOf({ preset: "readonly", deny: ["grep"] });
    const exported = JSON.parse(exportConfig("loom", imported).content);
    expect(exported.tools).toEqual({ allow: ["readFile", "listFiles", "glob"] });
    expect(importConfig("loom", JSON.stringify(exported)).agents[0].tools).toEqual(imported.agents[0].tools);
  });

  it("a preset Loom does not have is a corrupt profile, refused at its path", () => {
    expect(parseError(() => toolsOf({ preset: "safe" })).issues).toEqual([{ path: "tools.preset", message: 'expected full, coding, readonly or none (Loom\'s presets), got "safe"' }]);
  });
});

describe("loom import: malformed input", () => {
  it("refuses approve outside onToolCall, like Loom does at load", () => {
    const error = parseError(() => loom({ name: "a", hooks: { onComplete: [{ action: "approve" }] } }));
    expect(error.issues).toEqual([{ path: "hooks.onComplete[0].action", message: "approve is valid only in onToolCall (found in onComplete)" }]);
  });

  it("suggests the nearest action and bucket, and refuses paths that escape the profile", () => {
    const error = parseError(() =>
      loom({ name: "a", hooks: { onToolCal: [{ action: "log" }], onToolCall: [{ action: "aprove" }], onComplete: [{ action: "save_json", path: "../../etc/x" }] } }),
    );
    expect(error.issues).toEqual([
      { path: "hooks.onToolCal", message: expect.stringContaining('did you mean "onToolCall"') },
      { path: "hooks.onToolCall[0].action", message: expect.stringContaining('did you mean "approve"') },
      { path: "hooks.onComplete[0].path", message: expect.stringContaining("inside the profile folder") },
    ]);
  });

  it("names the path of wrong types and the line of bad JSON", () => {
    expect(parseError(() => loom({ name: "a", hooks: { onToolCall: { action: "log" } } })).issues).toEqual([
      { path: "hooks.onToolCall", message: "expected a list, got an object" },
    ]);
    expect(parseError(() => loom({ name: "a", hooks: { onToolCall: [{ action: "command" }] } })).issues).toEqual([
      { path: "hooks.onToolCall[0].command", message: "is required" },
    ]);
    expect(parseError(() => importConfig("loom", '{\n  "name": "a",\n  "hooks": {\n}')).issues[0].line).toBe(4);
  });
});

describe("loom export", () => {
  const config: DialectConfig = {
    agents: [
      { name: "ops", description: "Ops", model: "openai:gpt-5.5", instructions: "Be careful.", maxTurns: 30, tools: ["readFile"], timeoutMs: 3_600_000, budgetUsd: 2.5 },
    ],
    schedules: [],
    hooks: [
      { id: "on-start-1", dialect: "loom", event: "session.start", scope: "agent:ops", action: { type: "log" }, onFailure: "continue" },
      { id: "on-tool-call-1", dialect: "loom", event: "tool.pre", scope: "agent:ops", action: { type: "command", command: "./check.sh" }, timeoutMs: 5000, onFailure: "block" },
      { id: "on-tool-call-2", dialect: "loom", event: "tool.pre", scope: "agent:ops", action: { type: "approve", timeoutMs: 900_000, onTimeout: "deny", tools: ["send_*"] }, onFailure: "block" },
      { id: "on-tool-call-3", dialect: "loom", event: "tool.pre", scope: "agent:ops", action: { type: "approve", timeoutMs: 900_000, onTimeout: "deny" }, onFailure: "block" },
      { id: "on-tool-end-1", dialect: "loom", event: "tool.post", scope: "agent:ops", action: { type: "save_json", path: "runs/tools.jsonl" }, onFailure: "continue" },
      { id: "on-model-call-1", dialect: "loom", event: "model.pre", scope: "agent:ops", action: { type: "log" }, onFailure: "continue" },
      { id: "on-model-end-1", dialect: "loom", event: "model.post", scope: "agent:ops", action: { type: "webhook", url: "https://m.example.com", method: "POST", headers: {} }, onFailure: "continue" },
      { id: "on-complete-1", dialect: "loom", event: "session.end", scope: "agent:ops", action: { type: "save_json", path: "runs/log.jsonl" }, onFailure: "continue" },
      { id: "on-error-1", dialect: "loom", event: "error", scope: "agent:ops", action: { type: "log" }, onFailure: "continue" },
    ],
  };

  it("round-trips everything Loom can express", () => {
    const exported = exportConfig("loom", config);
    expect(exported.warnings).toEqual([]);
    const { warnings, ...again } = importConfig("loom", exported.content);
    expect(again).toEqual(config);
    expect(warnings.map((w) => w.message)).toEqual(config.hooks.filter((h) => h.action.type === "command").map(() => expect.stringContaining("whole process environment")));
    expect(JSON.parse(exported.content).security).toEqual({ hitlTimeoutMs: 900_000 });
  });

  it("round-trips the seed profiles", () => {
    for (const file of ["loom/shop.agent.json", "loom/full-profile.agent.json"]) {
      const { warnings: _w, ...imported } = importConfig("loom", readFixture(file));
      const { warnings: _w2, ...again } = importConfig("loom", exportConfig("loom", imported).content);
      expect(again).toEqual(imported);
    }
  });

  it("warns about what Loom's agent.json cannot express", () => {
    const { warnings } = exportConfig("loom", {
      ...config,
      hooks: [
        { id: "gate", dialect: "loom", event: "tool.pre", scope: "agent:ops", action: { type: "block", reason: "no" } },
        { id: "late-approve", dialect: "loom", event: "session.end", scope: "agent:ops", action: { type: "approve" } },
        { id: "slow", dialect: "loom", event: "tool.pre", scope: "agent:ops", action: { type: "command", command: "x" }, timeoutMs: 60_000, matcher: "Bash" },
        { id: "prompt", dialect: "loom", event: "user.prompt.submit", scope: "agent:ops", action: { type: "log" } },
        { id: "lenient", dialect: "loom", event: "tool.pre", scope: "agent:ops", action: { type: "command", command: "x" }, onFailure: "continue" },
      ],
    });
    expect(warnings.map((w) => w.path)).toEqual(["hooks.gate.action", "hooks.late-approve.event", "hooks.slow.timeoutMs", "hooks.slow.matcher", "hooks.prompt.event", "hooks.lenient.onFailure"]);
  });
});

describe("loom: Loom's own defaults kept, nothing of Hookplane's written", () => {
  it("a profile without maxTurns, timeout or tools runs with Loom's defaults, and exports back without them", () => {
    const source = '{\n  "name": "bare",\n  "model": "anthropic:claude-sonnet-4-6"\n}\n';
    const { warnings, ...imported } = importConfig("loom", source);
    expect(warnings).toEqual([]);
    expect(imported.agents).toEqual([{ name: "bare", model: "anthropic:claude-sonnet-4-6", maxTurns: 100, timeoutMs: 1_800_000, tools: ["*"] }]);
    expect(exportConfig("loom", imported).content).toBe(source);
  });

  it("preset none is no tools; an allow list is the tools; Hookplane's own limits are written when they differ", () => {
    const none = importConfig("loom", '{"name": "n", "tools": {"preset": "none"}}');
    expect(none.agents[0].tools).toEqual([]);
    const exported = JSON.parse(
      exportConfig("loom", { agents: [{ name: "n", tools: [], maxTurns: 20, timeoutMs: 600_000 }], hooks: [], schedules: [] }).content,
    );
    expect(exported).toEqual({ name: "n", maxTurns: 20, tools: { preset: "none" }, execution: { timeout: "10m" } });
    expect(importConfig("loom", JSON.stringify(exported)).agents).toEqual([{ name: "n", model: "openai:gpt-5.5", maxTurns: 20, timeoutMs: 600_000, tools: [] }]);
  });
});
