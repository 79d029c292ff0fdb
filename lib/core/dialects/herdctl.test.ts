import { describe, expect, it } from "vitest";
import type { DialectConfig } from "./index";
import { exportConfig, importConfig } from "./index";
import { readFixture } from "./fixtures/fixture-files";
import { parseError } from "@/test/dialect-harness";

const snippet = (file: string) => importConfig("herdctl", readFixture(`herdctl/${file}`), { agent: "snippet" });
const discord = (channel: string) => ({ type: "discord" as const, channel, tokenSecret: "DISCORD_BOT_TOKEN" });

describe("herdctl import: the seed's examples", () => {
  it("quick example: shell (30 s default) and a conditional discord hook with an env channel", () => {
    const result = importConfig("herdctl", readFixture("herdctl/quick-example.yaml"));
    // No allowed_tools: Claude Code's tools, all of them.
    // No max_turns: herdctl runs without a limit, so the agent gets Hookplane's highest (warned).
    expect(result.agents).toEqual([{ name: "price-checker", description: "Monitors product prices", metadataFile: "metadata.json", tools: ["*"], maxTurns: 1000 }]);
    expect(result.hooks).toEqual([
      {
        id: "log-output",
        dialect: "herdctl",
        name: "Log output",
        event: "session.end",
        scope: "agent:price-checker",
        action: { type: "command", command: "jq -r '.result.output'" },
        timeoutMs: 30_000,
        onFailure: "continue",
      },
      {
        id: "price-alert",
        dialect: "herdctl",
        name: "Price alert",
        event: "session.end",
        scope: "agent:price-checker",
        when: "metadata.shouldNotify",
        // A channel is not a credential: the variable is kept as written, with a warning to replace it.
        action: discord("${DISCORD_CHANNEL_ID}"),
        onFailure: "continue",
      },
    ]);
    expect(result.warnings).toContainEqual({ path: "hooks.after_run[1].channel_id", message: expect.stringContaining("DISCORD_CHANNEL_ID") });
  });

  it("after_run → session.end and on_error → error", () => {
    expect(snippet("after-run.yaml").hooks).toEqual([
      { id: "after-run-1", dialect: "herdctl", event: "session.end", scope: "agent:snippet", action: { type: "command", command: "echo 'Job completed'" }, timeoutMs: 30_000, onFailure: "continue" },
    ]);
    expect(snippet("on-error.yaml").hooks).toEqual([
      { id: "on-error-1", dialect: "herdctl", event: "error", scope: "agent:snippet", action: discord("${ALERT_CHANNEL_ID}"), onFailure: "continue" },
    ]);
  });

  it("on_events become onOutcomes; a webhook defaults to POST, no headers, 10 s", () => {
    const [first, second] = snippet("event-filtering.yaml").hooks;
    expect(first).toMatchObject({ id: "after-run-1", onOutcomes: ["completed"], action: discord("...") });
    expect(second).toEqual({
      id: "after-run-2",
      dialect: "herdctl",
      event: "session.end",
      scope: "agent:snippet",
      onOutcomes: ["failed", "timeout"],
      action: { type: "webhook", url: "https://alerts.example.com/errors", method: "POST", headers: {} },
      timeoutMs: 10_000,
      onFailure: "continue",
    });
  });

  it("shell timeouts are milliseconds", () => {
    expect(snippet("shell-hook.yaml").hooks[0]).toMatchObject({ id: "process-output", timeoutMs: 5000, action: { command: "jq -r '.result.output' | tee -a /var/log/agent.log" } });
  });

  it("webhook headers: ${ENV} becomes ${secret:ENV}, with a warning per variable", () => {
    const result = snippet("webhook-hook.yaml");
    expect(result.hooks[0]).toMatchObject({
      id: "notify-ci",
      action: {
        type: "webhook",
        url: "https://ci.example.com/webhooks/agent-complete",
        method: "POST",
        headers: { Authorization: "Bearer ${secret:CI_TOKEN}", "X-Agent-Name": "${secret:AGENT_NAME}" },
      },
    });
    expect(result.warnings.filter((w) => w.path.startsWith("hooks.after_run[0].headers")).map((w) => w.path)).toEqual([
      "hooks.after_run[0].headers.Authorization",
      "hooks.after_run[0].headers.X-Agent-Name",
    ]);
  });

  it("discord and slack: channel_id → channel, bot_token_env → tokenSecret", () => {
    expect(snippet("discord-hook.yaml").hooks[0]).toMatchObject({ id: "job-notification", action: discord("123456789012345678") });
    expect(snippet("slack-hook.yaml").hooks[0]).toMatchObject({
      id: "job-notification",
      action: { type: "slack", channel: "C0123456789", tokenSecret: "SLACK_BOT_TOKEN" },
      onFailure: "continue",
    });
  });

  it("keeps `when` on every hook type", () => {
    expect(snippet("conditional.yaml").hooks.map((h) => [h.id, h.action.type, h.when])).toEqual([
      ["after-run-1", "discord", "metadata.shouldNotify"],
      ["after-run-2", "slack", "metadata.shouldNotify"],
      ["after-run-3", "webhook", "result.success"],
      ["after-run-4", "command", "result.error"],
    ]);
    expect(importConfig("herdctl", readFixture("herdctl/agent-metadata.yaml")).hooks[0]).toMatchObject({ scope: "agent:price-checker", when: "metadata.shouldNotify" });
  });

  it("continue_on_error: false → onFailure block, true (the default) → continue", () => {
    expect(snippet("error-handling.yaml").hooks.map((h) => h.onFailure)).toEqual(["block", "continue"]);
  });

  it("complete price alert system: agent fields, interval schedule with the default prompt", () => {
    const result = importConfig("herdctl", readFixture("herdctl/price-alert-system.yaml"));
    expect(result.agents).toEqual([
      {
        name: "price-checker",
        description: "Monitors product prices",
        instructions: expect.stringMatching(/^You monitor product prices\. After checking prices:\n1\. Update context\.md/),
        tools: ["WebSearch", "WebFetch", "Read", "Write", "Edit"],
        maxTurns: 15,
        metadataFile: "metadata.json",
      },
    ]);
    expect(result.schedules).toEqual([
      { name: "check", agent: "price-checker", intervalMs: 4 * 3600 * 1000, prompt: "Check current prices and update context." },
    ]);
    expect(result.hooks.map((h) => h.id)).toEqual(["show-result", "price-alert"]);
    expect(result.warnings.map((w) => w.path)).toEqual(expect.arrayContaining(["denied_tools", "model"]));
  });

  it("CI/CD integration and multi-channel examples", () => {
    const ci = importConfig("herdctl", readFixture("herdctl/ci-cd-integration.yaml"));
    expect(ci.hooks.map((h) => [h.id, h.event, h.action.type, h.onOutcomes])).toEqual([
      ["trigger-ci", "session.end", "webhook", ["completed"]],
      ["failure-alert", "session.end", "discord", ["failed", "timeout"]],
      ["pagerduty", "error", "webhook", undefined],
    ]);
    const multi = importConfig("herdctl", readFixture("herdctl/multi-channel.yaml"));
    expect(multi.hooks.map((h) => [h.id, h.action.type, h.onOutcomes, h.timeoutMs])).toEqual([
      ["full-report", "discord", ["completed"], undefined],
      ["post-summary", "command", ["completed"], 30_000],
      ["archive-report", "command", undefined, 30_000],
    ]);
    // The shell's own ${WEBHOOK_ID} stays: the shell expands it, not herdctl.
    expect(multi.hooks[1].action).toMatchObject({ command: expect.stringContaining("${WEBHOOK_ID}") });
  });
});

describe("herdctl import: malformed input", () => {
  it("names the line of a YAML syntax error", () => {
    const error = parseError(() => importConfig("herdctl", "name: a\nhooks:\n  after_run:\n    - type: shell\n     command: x\n"));
    expect(error.issues[0]).toMatchObject({ line: 5, message: expect.stringMatching(/invalid YAML at line 5/) });
  });

  it("names the path of wrong types and unknown values", () => {
    const error = parseError(() =>
      importConfig(
        "herdctl",
        "name: a\nhooks:\n  after_run:\n    - type: shell\n      command: x\n      timeout: soon\n    - type: shel\n      command: y\n    - type: webhook\n      url: https://x\n      on_events: [done]\n",
      ),
    );
    expect(error.issues).toEqual([
      { path: "hooks.after_run[0].timeout", message: expect.stringMatching(/whole number \(milliseconds\), got a string/) },
      { path: "hooks.after_run[1].type", message: expect.stringContaining('did you mean "shell"') },
      { path: "hooks.after_run[2].on_events[0]", message: expect.stringContaining('unknown event "done"') },
    ]);
  });

  it("requires a name when no agent is given, and suggests the nearest hook event", () => {
    expect(parseError(() => importConfig("herdctl", "description: x\n")).issues).toEqual([{ path: "name", message: "is required" }]);
    const result = importConfig("herdctl", "name: a\nmodel: claude-sonnet-4-5\nhooks:\n  after_runs:\n    - type: shell\n      command: x\n");
    expect(result.hooks).toEqual([]);
    expect(result.warnings).toEqual([
      { path: "max_turns", message: expect.stringContaining("herdctl sets no turn limit") },
      { path: "hooks.after_runs", message: expect.stringContaining('did you mean "after_run"'), enforcement: "not_imported" },
    ]);
    expect(result.agents[0].model).toBe("anthropic:claude-sonnet-4-5");
  });
});

describe("herdctl export", () => {
  const config: DialectConfig = {
    agents: [
      {
        name: "reporter",
        description: "Daily reports",
        model: "anthropic:claude-sonnet-4-5",
        instructions: "Write the report.\nKeep it short.",
        tools: ["Read", "WebFetch"],
        maxTurns: 12,
        metadataFile: "meta.json",
      },
    ],
    schedules: [
      { name: "hourly", agent: "reporter", intervalMs: 3_600_000, prompt: "Report" },
      { name: "morning", agent: "reporter", cron: "0 9 * * 1-5", prompt: "Morning report", enabled: false },
    ],
    hooks: [
      { id: "log", dialect: "herdctl", name: "Log", event: "session.end", scope: "agent:reporter", action: { type: "command", command: "jq . >> log" }, timeoutMs: 30_000, onFailure: "continue" },
      { id: "slow-log", dialect: "herdctl", name: "Slow log", event: "session.end", scope: "agent:reporter", action: { type: "command", command: "sleep 1" }, timeoutMs: 90_000, onFailure: "block", when: "result.success" },
      {
        id: "ci",
        dialect: "herdctl",
        name: "CI",
        event: "session.end",
        scope: "agent:reporter",
        onOutcomes: ["completed"],
        // A secret in the userinfo round-trips as ${ENV}; ${PATH} in the path is not a secret and stays as written.
        action: { type: "webhook", url: "https://ci:${secret:CI_PASS}@ci.example.com/${PATH}", method: "PUT", headers: { Authorization: "Bearer ${secret:CI_TOKEN}" } },
        timeoutMs: 10_000,
        onFailure: "continue",
      },
      { id: "ping", dialect: "herdctl", name: "Ping", event: "session.end", scope: "agent:reporter", onOutcomes: ["failed", "timeout", "cancelled"], action: { type: "discord", channel: "${CHAN}", tokenSecret: "DISCORD_BOT_TOKEN" }, onFailure: "continue" },
      // herdctl files list after_run before on_error; hooks of different events keep no mutual order.
      { id: "alert", dialect: "herdctl", name: "Alert", event: "error", scope: "agent:reporter", action: { type: "slack", channel: "C1", tokenSecret: "SLACK_TOKEN" }, onFailure: "block" },
    ],
  };

  it("round-trips everything herdctl can express", () => {
    const exported = exportConfig("herdctl", config);
    const { warnings, ...again } = importConfig("herdctl", exported.content);
    expect(again).toEqual(config);
    expect(exported.warnings).toEqual([]);
    expect(warnings.map((w) => w.path)).toEqual(expect.arrayContaining(["hooks.after_run[2].headers.Authorization"]));
  });

  it("round-trips the seed's complete example", () => {
    const { warnings: _w, ...imported } = importConfig("herdctl", readFixture("herdctl/price-alert-system.yaml"));
    const { warnings: _w2, ...again } = importConfig("herdctl", exportConfig("herdctl", imported).content);
    expect(again).toEqual(imported);
  });

  it("session.timeout is how long a session may be resumed, not a run limit: never imported as one, never exported", () => {
    const result = importConfig("herdctl", "name: a\nsession:\n  timeout: 24h\n  max_turns: 5\n");
    expect(result.agents).toEqual([{ name: "a", tools: ["*"], maxTurns: 5 }]);
    expect(result.warnings).toContainEqual({ path: "session.timeout", message: expect.stringContaining("how long a session may be resumed") });
    const exported = exportConfig("herdctl", { agents: [{ name: "a", tools: ["*"], timeoutMs: 600_000 }], hooks: [], schedules: [] });
    // Hookplane's default limit (20) is written: herdctl would run the agent without one.
    expect(exported.content).toBe("name: a\nmax_turns: 20\n");
    expect(exported.warnings).toEqual([{ path: "agent.timeoutMs", message: "herdctl has no run timeout; not exported" }]);
  });

  it("a timeout beyond Hookplane's limit is refused with the limit in herdctl's milliseconds", () => {
    const error = parseError(() => importConfig("herdctl", "name: a\nhooks:\n  after_run:\n    - type: shell\n      command: x\n      timeout: 700000000\n"));
    expect(error.issues).toEqual([{ path: "hooks.after_run[0].timeout", message: "a timeout is more than 0 and at most 604800000 milliseconds (7 days); got 700000000 milliseconds" }]);
  });

  it("warns about what herdctl cannot express", () => {
    const { warnings } = exportConfig("herdctl", {
      ...config,
      hooks: [
        { id: "gate", dialect: "herdctl", event: "tool.pre", scope: "agent:reporter", action: { type: "command", command: "x" } },
        { id: "ctx", dialect: "herdctl", event: "session.end", scope: "agent:reporter", action: { type: "context", text: "hi" } },
        { id: "budget", dialect: "herdctl", event: "session.end", scope: "agent:reporter", onOutcomes: ["budget"], action: { type: "command", command: "x" } },
        { id: "global", dialect: "herdctl", event: "session.end", scope: "global", action: { type: "command", command: "x" }, name: "G" },
      ],
    });
    expect(warnings.map((w) => w.path)).toEqual([
      "hooks.global.scope",
      "hooks.gate.event",
      "hooks.ctx.action",
      "hooks.budget.id",
      "hooks.budget.onOutcomes",
    ]);
  });
  it("a negated condition is no herdctl when: exported without it, with a warning", () => {
    const exported = exportConfig("herdctl", {
      ...config,
      hooks: [{ id: "not-on-call", name: "N", dialect: "herdctl", event: "session.end", scope: "agent:reporter", when: '!actor.groups: /"on-call"/', action: { type: "command", command: "x" } }],
    });
    expect(exported.warnings).toContainEqual({ path: "hooks.not-on-call.when", message: "herdctl conditions cannot negate; exported without it" });
    expect(exported.content).not.toContain("on-call");
  });
});

describe("herdctl max_turns", () => {
  it("no max_turns is no limit in herdctl: imported as Hookplane's highest limit with a warning, and exported again as no max_turns", () => {
    const result = importConfig("herdctl", "name: free\n");
    expect(result.agents).toEqual([{ name: "free", tools: ["*"], maxTurns: 1000 }]);
    expect(result.warnings).toContainEqual({ path: "max_turns", message: expect.stringMatching(/herdctl sets no turn limit; .* gets the highest, 1000 model calls per run/) });
    expect(exportConfig("herdctl", result).content).toBe("name: free\n");
    // A limit the file sets is kept as it is, with no warning about it.
    const limited = importConfig("herdctl", "name: bounded\nmax_turns: 7\n");
    expect(limited.agents[0].maxTurns).toBe(7);
    expect(limited.warnings.map((w) => w.path)).not.toContain("max_turns");
    expect(exportConfig("herdctl", limited).content).toBe("name: bounded\nmax_turns: 7\n");
  });

  it("a corrupt max_turns is refused at its path", () => {
    expect(parseError(() => importConfig("herdctl", "name: a\nmax_turns: lots\n")).issues).toEqual([{ path: "max_turns", message: expect.stringMatching(/number/) }]);
    expect(parseError(() => importConfig("herdctl", "name: a\nmax_turns: 0\n")).issues).toEqual([{ path: "max_turns", message: expect.any(String) }]);
    expect(parseError(() => importConfig("herdctl", "name: a\nmax_turns: 5000\n")).issues).toEqual([{ path: "max_turns", message: expect.stringMatching(/1000/) }]);
  });
});
