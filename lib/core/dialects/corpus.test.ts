/**
 * A corpus of real configuration files (test/fixtures/dialects/<dialect>/<case>/, each with a
 * SOURCE naming repository, path and commit) and, next to each, the mapping it should import as,
 * written from the framework's own schema, docs and code (expected.yaml; see its first line), each
 * hook carrying `dialect: <the framework>` besides (not repeated in every expected.yaml).
 * Each file imports to exactly that mapping; its export passes the framework's own validation
 * where the framework has a schema (herdctl's AgentConfigSchema, Loom's ProfileSchema, vendored in
 * test/framework-schemas/ with their SOURCE and license) and re-imports to the same canonical config.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { AgentConfigSchema } from "@/test/framework-schemas/herdctl/schema";
import { ProfileSchema } from "@/test/framework-schemas/loom/schema";
import { exportConfig, importConfig, type DialectConfig, type DialectName, type ExportDialectName } from "./index";

const ROOT = path.join(import.meta.dirname, "../../../test/fixtures/dialects");
/** The coding agents whose command hooks ran on the developer's machine, and keep running there. */
const CODING_AGENTS = new Set(["claude-code", "codex", "gemini-cli", "copilot", "cursor"]);

/** `file`: the configuration file's name in a case folder (the first that exists). */
const FILES: Record<string, { file: string[]; parse: (text: string) => Record<string, unknown>; exportable: boolean }> = {
  herdctl: { file: ["agent.yaml"], parse: (t) => parseYaml(t), exportable: true },
  loom: { file: ["agent.json"], parse: (t) => JSON.parse(t), exportable: true },
  "tailored-ai": { file: ["config.yaml"], parse: (t) => parseYaml(t), exportable: true },
  agentopology: { file: ["topology.at"], parse: () => ({}), exportable: false },
  // A project's .claude/settings.json or a plugin's hooks/hooks.json: the same `hooks` object.
  "claude-code": { file: ["settings.json", "hooks.json"], parse: () => ({}), exportable: true },
};

/** The frameworks' own validation of an exported file; throws what the framework would refuse. */
const VALIDATE: Partial<Record<string, (content: string) => void>> = {
  herdctl: (content) => void AgentConfigSchema.parse(parseYaml(content)),
  loom: (content) => void ProfileSchema.parse(JSON.parse(content)),
};

const cases = (dialect: string) =>
  readdirSync(path.join(ROOT, dialect), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith("_"))
    .map((e) => e.name);

/** `instructions: {from: key}` in expected.yaml: the text of that field of the source file. */
function resolveExpected(expected: DialectConfig, source: Record<string, unknown>): DialectConfig {
  const agents = expected.agents.map((agent) => {
    const from = (agent.instructions as unknown as { from?: string } | undefined)?.from;
    return from === undefined ? agent : { ...agent, instructions: source[from] as string };
  });
  return { agents, hooks: expected.hooks ?? [], schedules: expected.schedules ?? [] };
}

function canonical(result: DialectConfig): DialectConfig {
  return {
    agents: result.agents,
    hooks: [...result.hooks, ...result.schedules.flatMap((s) => s.hooks ?? [])],
    schedules: result.schedules.map(({ hooks: _hooks, ...schedule }) => schedule),
  };
}

describe.each(Object.keys(FILES))("corpus: %s", (dialect) => {
  const { file, parse, exportable } = FILES[dialect];
  const names = cases(dialect);

  it("has at least ten real files, each with its SOURCE", () => {
    expect(names.length).toBeGreaterThanOrEqual(10);
    for (const name of names) {
      const source = readFileSync(path.join(ROOT, dialect, name, "SOURCE"), "utf8");
      expect(source, name).toMatch(/^repo: [\w.-]+\/[\w.-]+$/m);
      expect(source, name).toMatch(/^path: \S+$/m);
      expect(source, name).toMatch(/^commit: [0-9a-f]{40}$/m);
    }
  });

  it.each(names)("%s: imports as the framework means it; the export passes the framework's validation and re-imports the same", (name) => {
    const dir = path.join(ROOT, dialect, name);
    const text = readFileSync(path.join(dir, file.find((f) => existsSync(path.join(dir, f)))!), "utf8");
    const expected = resolveExpected(parseYaml(readFileSync(path.join(dir, "expected.yaml"), "utf8")), parse(text));

    const { warnings, ...imported } = importConfig(dialect as DialectName, text);
    const got = canonical(imported);
    expect(got.agents).toEqual(expected.agents);
    // Every hook keeps its framework's runtime contract (lib/core/hooks/dialect-contracts.ts).
    // A coding agent's command hook keeps running on the developer's machine (lib/core/hooks/runs-on.ts).
    expect(got.hooks).toEqual(expected.hooks.map((hook) => ({ ...hook, dialect, ...(CODING_AGENTS.has(dialect) && hook.action.type === "command" ? { runsOn: "agent" } : {}) })));
    expect(got.schedules).toEqual(expected.schedules);
    for (const warning of warnings) expect(warning.message, warning.path).not.toBe("");
    if (!exportable) return;

    const agent = dialect === "tailored-ai" ? undefined : imported.agents[0]?.name;
    const exported = exportConfig(dialect as ExportDialectName, imported, { agent });
    VALIDATE[dialect]?.(exported.content);
    const { warnings: _again, ...reimported } = importConfig(dialect as DialectName, exported.content);
    // A model Hookplane cannot run was not imported; the export says Loom then runs its default.
    const unexpressed = new Set(exported.warnings.map((w) => w.path));
    const comparable = (config: DialectConfig) =>
      unexpressed.has("agent.model") ? { ...config, agents: config.agents.map(({ model: _m, ...a }) => a) } : config;
    expect(comparable(reimported)).toEqual(comparable(imported));
  });
});
