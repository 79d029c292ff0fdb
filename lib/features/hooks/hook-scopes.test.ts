import { describe, expect, it } from "vitest";
import { groupByScope, matcherNames, scopeOptions } from "./hook-scopes";
import { previewMatcher } from "./matcher-preview";

const agents = [
  { id: "b1", name: "zeta", tools: ["shell"] },
  { id: "a1", name: "alpha", tools: ["write_file", "read_file"] },
];
const schedules = [{ id: "s1", name: "nightly", agentId: "a1" }];

describe("hook scopes", () => {
  it("groups global first, then agents by name, deleted agents, then schedules", () => {
    const options = scopeOptions(agents, schedules);
    const hooks = ["schedule:s1", "agent:b1", "agent:gone", "global", "agent:a1", "global"].map((scope, i) => ({ scope, i }));
    const groups = groupByScope(hooks, options);
    expect(groups.map((g) => g.label)).toEqual(["Global (every agent)", "Agent alpha", "Agent zeta", "Deleted agent gone", "Schedule nightly (alpha)"]);
    expect(groups[0].hooks.map((h) => h.i)).toEqual([3, 5]);
  });

  it("previews a matcher against the tools of the scope", () => {
    expect(matcherNames("agent:a1", "tool", agents, schedules)).toEqual(["read_file", "write_file"]);
    expect(matcherNames("global", "agent", agents, schedules)).toEqual(["alpha", "zeta"]);
    expect(matcherNames("schedule:s1", "tool", agents, schedules)).toEqual(["read_file", "write_file"]);
    expect(previewMatcher("write_file|shell", ["read_file", "shell", "write_file"])).toEqual({ hits: ["shell", "write_file"], misses: ["read_file"] });
    expect(previewMatcher("", ["a"]).hits).toEqual(["a"]);
    expect(previewMatcher("Write(", ["a"]).error).toContain("invalid regex");
  });
});
