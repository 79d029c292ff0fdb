/**
 * docs/bridges/capabilities.md is generated (scripts/bridge-capabilities.ts): it must be what the
 * fixtures and the bridge say today, and what it says must be true of the recordings.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agentTables, type AgentTable } from "@/scripts/bridge-capabilities/agent-table";
import { FIXTURES_DIR, readAgentFixtures, readAllFixtures } from "@/scripts/bridge-capabilities/fixtures";
import { CAPABILITIES_DOC, capabilitiesMarkdown } from "@/scripts/bridge-capabilities/render";

const tables = agentTables();
const tableOf = (agent: string): AgentTable => tables.find((t) => t.agent === agent)!;
const cell = (agent: string, event: string) => tableOf(agent).enforcement.get(event)!.cells;
const eventsOf = (agent: string, version: string) => [...tableOf(agent).byVersion.find((v) => v.version === version)!.events.keys()];

describe("docs/bridges/capabilities.md", () => {
  it("is the table generated from the fixtures and the bridge", () => {
    const written = readFileSync(CAPABILITIES_DOC, "utf8");
    expect(written, `${CAPABILITIES_DOC} is stale: run \`npm run docs:capabilities\``).toBe(capabilitiesMarkdown(tables));
  });

  it("has a section for every agent with fixtures", () => {
    expect(tables.map((t) => t.name)).toEqual(["Claude Code", "Codex", "Copilot CLI", "Cursor", "Gemini CLI"]);
  });
});

describe("versions.json", () => {
  it("names versions that the agent's SOURCE.md says it recorded", () => {
    for (const fixtures of readAllFixtures().filter((f) => f.origin === "recorded")) {
      const source = readFileSync(path.join(FIXTURES_DIR, fixtures.agent, "SOURCE.md"), "utf8");
      for (const { version } of fixtures.versions) expect(source, `${fixtures.agent} ${version}`).toContain(`**${version}**`);
    }
  });

  it("agrees with the versions the payloads themselves carry", () => {
    const copilot = readAgentFixtures("copilot");
    for (const { version, scenarios } of copilot.versions) {
      for (const p of scenarios.flatMap((s) => s.payloads)) expect((p.capture.env as Record<string, string>).COPILOT_CLI_BINARY_VERSION).toBe(version);
    }
    const cursor = readAgentFixtures("cursor");
    expect(cursor.origin).toBe("reference");
    for (const { version, scenarios } of cursor.versions) {
      for (const p of scenarios.flatMap((s) => s.payloads)) expect(p.stdin.cursor_version).toBe(version);
    }
  });
});

describe("what the recordings show", () => {
  it("Claude Code 2.1.332 fires PermissionRequest in print mode, where 2.1.197 fired none", () => {
    const diff = tableOf("claude-code").diffs[0];
    expect([diff.from, diff.to]).toEqual(["2.1.197", "2.1.332"]);
    const writeDefault = diff.compared.find((c) => c.from === "write-default")!;
    expect(writeDefault.addedEvents).toEqual(["PermissionRequest"]);
    expect(writeDefault.removedEvents).toEqual([]);
  });

  it("Claude Code 2.1.197 already sent `effort`: no field changed in bash-ok between the versions", () => {
    const bashOk = tableOf("claude-code").diffs[0].compared.find((c) => c.from === "bash-ok")!;
    expect(bashOk).toMatchObject({ addedEvents: [], removedEvents: [], fields: [] });
    const preToolUse = tableOf("claude-code").byVersion[0].events.get("PreToolUse")!;
    expect(preToolUse.fields.find((f) => f.field === "effort")?.seen).toBe(preToolUse.payloads);
  });

  it("Codex's Interrupt is recorded with 0.171 only, and recorded as turn.interrupted", () => {
    expect(eventsOf("codex", "0.171.0")).toContain("Interrupt");
    expect(eventsOf("codex", "0.169.0")).not.toContain("Interrupt");
    expect(tableOf("codex").enforcement.get("Interrupt")!.records).toEqual(["`turn.interrupted` (recorded, no hooks)"]);
  });

  it("Copilot CLI names the event on the hook's command line, not in its stdin", () => {
    const { naming } = tableOf("copilot");
    expect(naming.stdinKeys).toEqual([]);
    expect(naming.command).toContain("--event");
    expect(naming.partly).toEqual([{ event: "permissionRequest", key: "hookName" }]);
    expect(tableOf("claude-code").naming.stdinKeys).toEqual(["hook_event_name"]);
  });
});

describe("what each event lets Hookplane enforce", () => {
  it("follows modification-support.ts for rewrites, output changes and ask, naming the answer's field", () => {
    expect(cell("claude-code", "PreToolUse")).toMatchObject({
      block: 'yes (`permissionDecision: "deny"`)',
      person: 'yes (`permissionDecision: "allow"`)',
      ask: 'yes (`permissionDecision: "ask"`)',
      input: 'yes (`permissionDecision: "allow"`, `updatedInput`)',
    });
    expect(cell("claude-code", "PostToolUse").output).toBe("yes (`updatedToolOutput`)");
    expect(cell("claude-code", "PermissionRequest").input).toBe('an approver\'s edit (`decision.behavior: "allow"`, `decision.updatedInput`)');
    // Codex refuses an explicit allow, updatedInput and context at PreToolUse.
    expect(cell("codex", "PreToolUse")).toMatchObject({ person: "a no only", ask: "no: blocked", input: "no: blocked", context: "no" });
    expect(cell("gemini-cli", "BeforeTool")).toMatchObject({ ask: 'yes (`decision: "ask"`)', input: 'yes, no key removed (`decision: "allow"`, `tool_input`)' });
    expect(cell("copilot", "postToolUse").output).toBe("no: blocked before it runs");
    expect(cell("copilot", "permissionRequest")).toMatchObject({ block: 'yes (`behavior: "deny"`)', person: 'yes (`behavior: "allow"`)', input: "no: blocked" });
  });

  it("follows each bridge's answers for blocks and context", () => {
    // Claude Code cannot refuse a subagent at SubagentStart; a block at Stop keeps it working.
    expect(cell("claude-code", "SubagentStart")).toMatchObject({ block: "no", context: "yes (`additionalContext`)" });
    expect(cell("claude-code", "Stop").block).toBe('yes, keeps it working (`decision: "block"`)');
    expect(cell("cursor", "stop").block).toBe("yes, keeps it working (`followup_message`)");
    expect(cell("gemini-cli", "SessionStart").block).toBe("no");
    expect(cell("gemini-cli", "BeforeModel").block).toBe("—");
  });

  it("marks every cell of Cursor, built from its reference, as such", () => {
    const doc = capabilitiesMarkdown([tableOf("cursor")]);
    expect(doc).toContain('| `preToolUse` | — | reference | `tool.pre` | yes (`permission: "deny"`) (reference) |');
  });
});

/** A fixtures root of one agent, from scenario folder → payloads, with a versions.json. */
const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

function fixtureRoot(agent: string, scenarios: Record<string, { version: string; payloads: Record<string, unknown>[] } | { unlisted: true; payloads: Record<string, unknown>[] }>): string {
  const root = mkdtempSync(path.join(tmpdir(), "capabilities-"));
  roots.push(root);
  const versions: Record<string, string> = {};
  for (const [folder, scenario] of Object.entries(scenarios)) {
    mkdirSync(path.join(root, agent, folder), { recursive: true });
    scenario.payloads.forEach((stdin, i) => writeFileSync(path.join(root, agent, folder, `0${i + 1}-${String(stdin.hook_event_name)}.json`), JSON.stringify({ stdin })));
    if ("version" in scenario) versions[folder] = scenario.version;
  }
  writeFileSync(path.join(root, agent, "versions.json"), JSON.stringify({ origin: "recorded", scenarios: versions }));
  return root;
}

const pre = (extra: Record<string, unknown> = {}) => ({ session_id: "s", cwd: "/p", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t", ...extra });

describe("the generator", () => {
  it("marks a field one version sent and the next did not as gone", () => {
    const root = fixtureRoot("claude-code", {
      "bash-ok": { version: "2.1.197", payloads: [pre({ prompt_id: "p" })] },
      "bash-ok-2.1.332": { version: "2.1.332", payloads: [pre()] },
    });
    const [table] = agentTables(root);
    expect(table.diffs[0].compared[0].fields).toEqual([{ event: "PreToolUse", added: [], removed: ["prompt_id"] }]);
    expect(capabilitiesMarkdown([table])).toContain("`PreToolUse` lost `prompt_id`");
  });

  it("refuses a scenario versions.json does not place under a version", () => {
    const root = fixtureRoot("codex", { "shell-ok": { version: "0.169.0", payloads: [pre()] }, "shell-new": { unlisted: true, payloads: [pre()] } });
    expect(() => agentTables(root)).toThrow(/does not say which version recorded shell-new/);
  });
});
