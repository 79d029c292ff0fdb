import { describe, expect, it } from "vitest";
import type { DialectConfig } from "./index";
import { exportConfig, importConfig } from "./index";
import { parseError } from "@/test/dialect-harness";

/** One hook of every action, every optional field, and schedule hooks: the whole model. */
const config: DialectConfig = {
  agents: [
    { name: "coder", description: "Writes code", model: "anthropic:claude-sonnet-4-5", instructions: "Be terse.", tools: ["shell", "write_file"], maxTurns: 30, timeoutMs: 900_000, budgetUsd: 1.5, dailyBudgetUsd: 10, retryTools: ["write_file"] },
    { name: "demo", model: "scripted", script: [{ text: "hi", toolCalls: [{ name: "shell", input: { cmd: "ls" } }], usage: { inputTokens: 10, outputTokens: 5 } }] },
    { name: "pipeline", flow: ["coder", "demo"], metadataFile: "meta.json" },
  ],
  hooks: [
    { id: "no-prod", name: "No prod", event: "tool.pre", scope: "global", matcher: "write_*|shell", action: { type: "block", reason: "Production paths are off-limits", denyIf: "/srv/prod" } },
    { id: "ask", event: "tool.pre", scope: "agent:coder", action: { type: "approve", timeoutMs: 1_800_000, onTimeout: "wait", tools: ["shell"], message: "OK?" }, onFailure: "block" },
    { id: "remind", event: "model.pre", scope: "agent:coder", action: { type: "context", text: "Never print secrets." }, enabled: false },
    { id: "memory", event: "session.start", scope: "agent:coder", action: { type: "tool", tool: "memory", args: { action: "read" }, skipIf: "empty" } },
    { id: "lint", event: "tool.post", scope: "agent:coder", mode: "shadow", action: { type: "command", command: "npm run lint", secrets: ["NPM_TOKEN"] }, timeoutMs: 60_000, onFailure: "continue" },
    { id: "ci", event: "session.end", scope: "agent:coder", onOutcomes: ["completed", "max_turns"], when: "outcome: /completed/", action: { type: "webhook", url: "https://ci.example.com", method: "PUT", headers: { Authorization: "Bearer ${secret:CI}" } } },
    { id: "slack", event: "error", scope: "global", action: { type: "slack", channel: "C1", tokenSecret: "SLACK" } },
    { id: "discord", event: "agent.stop", scope: "agent:pipeline", matcher: "demo", action: { type: "discord", channel: "123", tokenSecret: "DISCORD" } },
    { id: "audit", event: "approval.settled", scope: "global", action: { type: "log", message: "settled" } },
    { id: "archive", event: "session.end", scope: "global", action: { type: "save_json", path: "runs/log.jsonl" } },
    { id: "redact", event: "model.pre", scope: "global", action: { type: "code", module: "redact_secrets" } },
  ],
  schedules: [
    { name: "nightly", agent: "coder", cron: "0 2 * * *", prompt: "Run the nightly job", enabled: false, hooks: [{ id: "inbox", event: "session.start", scope: "schedule:nightly", action: { type: "tool", tool: "gmail", args: {} } }] },
    { name: "hourly", agent: "demo", intervalMs: 3_600_000, prompt: "Tick" },
  ],
};

describe("hookplane format", () => {
  it("round-trips the whole model, in YAML and in JSON", () => {
    for (const format of ["yaml", "json"] as const) {
      const exported = exportConfig("hookplane", config, { format });
      expect(exported.content).toMatch(format === "yaml" ? /^hookplane: 1\n/ : /^\{\n  "hookplane": 1,/);
      expect(importConfig("hookplane", exported.content)).toEqual({ ...config, warnings: [] });
    }
  });

  it("exports one agent: its hooks, the global ones and its schedules", () => {
    const { warnings: _w, ...coder } = importConfig("hookplane", exportConfig("hookplane", config, { agent: "coder" }).content);
    expect(coder.agents.map((a) => a.name)).toEqual(["coder"]);
    expect(new Set(coder.hooks.map((h) => h.scope))).toEqual(new Set(["global", "agent:coder"]));
    expect(coder.schedules.map((s) => s.name)).toEqual(["nightly"]);
  });

  it("puts schedule hooks given at the top level inside their schedule", () => {
    const loose = { ...config, schedules: [{ ...config.schedules[0], hooks: undefined }], hooks: [...config.hooks, ...(config.schedules[0].hooks ?? [])] };
    const again = importConfig("hookplane", exportConfig("hookplane", loose).content);
    expect(again.schedules[0].hooks?.map((h) => h.id)).toEqual(["inbox"]);
    expect(again.hooks.map((h) => h.id)).not.toContain("inbox");
  });

  it("reports errors at canonical paths, with a suggestion for a misspelt event", () => {
    const error = parseError(() =>
      importConfig(
        "hookplane",
        "hookplane: 1\nhooks:\n  - id: a\n    event: tool.pree\n    action: {type: webhook}\n  - id: a\n    event: tool.pre\n    action: {type: log}\nagents:\n  - name: x\n    model: gpt-4\n",
      ),
    );
    expect(error.issues).toEqual([
      { path: "hooks[1].id", message: 'hook id "a" is used twice in scope global' },
      { path: "agents[0].model", message: expect.stringContaining('model is "scripted"') },
      { path: "hooks[0].event", message: expect.stringContaining('did you mean "tool.pre"') },
      { path: "hooks[0].action.url", message: expect.any(String) },
    ]);
  });

  it("warns about unknown keys instead of dropping them silently, and checks the version", () => {
    const result = importConfig("hookplane", "hookplane: 1\nhooks:\n  - id: a\n    event: error\n    colour: red\n    action: {type: log, level: warn}\nextras: 1\n");
    expect(result.warnings.map((w) => w.path)).toEqual(["hooks[0].colour", "hooks[0].action.level", "extras"]);
    expect(result.hooks).toEqual([{ id: "a", event: "error", action: { type: "log" } }]);
    expect(parseError(() => importConfig("hookplane", "hookplane: 2\n")).issues).toEqual([{ path: "hookplane", message: expect.stringMatching(/unsupported version 2/) }]);
  });

  it("writes and reads back an imported hook's dialect (its runtime contract), without a warning", () => {
    const hooks = [{ id: "a", event: "tool.pre" as const, scope: "global", dialect: "loom" as const, action: { type: "log" as const } }];
    const exported = exportConfig("hookplane", { agents: [], hooks, schedules: [] });
    const again = importConfig("hookplane", exported.content);
    expect(again.hooks).toEqual(hooks);
    expect(again.warnings).toEqual([]);
  });
});
