/**
 * Whatever a dialect produces must be storable as is: every imported agent, hook and schedule of
 * every fixture parses with the canonical schemas, and hook ids are unique within their scope.
 */
import { describe, expect, it } from "vitest";
import { agentSpecSchema, scheduleSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { importConfig, type DialectName, type ImportResult } from "./index";
import { fixtureFolder } from "./fixtures/fixture-files";

const imports: [string, ImportResult][] = [];
for (const [folder, dialect] of [
  ["claude-code", "claude-code"],
  ["herdctl", "herdctl"],
  ["loom", "loom"],
  ["tailored-ai", "tailored-ai"],
  ["agentopology", "agentopology"],
] as [string, DialectName][]) {
  for (const [file, content] of Object.entries(fixtureFolder(folder))) imports.push([file, importConfig(dialect, content, { agent: "fixture-agent" })]);
}
imports.push(["standard-agents", importConfig("standard-agents", fixtureFolder("standard-agents"), { agent: "fixture-agent" })]);

describe("every imported fixture validates against the canonical schemas", () => {
  it.each(imports)("%s", (_file, result) => {
    const hooks = [...result.hooks, ...result.schedules.flatMap((s) => s.hooks ?? [])];
    expect(hooks.length).toBeGreaterThan(0);
    for (const hook of hooks) {
      const parsed = hookSpecSchema.safeParse(hook);
      expect(parsed.error?.issues ?? [], hook.id).toEqual([]);
    }
    for (const agent of result.agents) expect(agentSpecSchema.safeParse(agent).error?.issues ?? []).toEqual([]);
    for (const { name: _n, hooks: _h, ...schedule } of result.schedules) expect(scheduleSpecSchema.safeParse(schedule).error?.issues ?? []).toEqual([]);
    const keys = hooks.map((h) => `${h.scope}/${h.id}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const warning of result.warnings) expect(warning.message).not.toBe("");
  });
});
