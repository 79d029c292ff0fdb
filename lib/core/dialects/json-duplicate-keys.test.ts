import { describe, expect, it } from "vitest";
import { importConfig } from "./index";
import { duplicateJsonKeys } from "./json-duplicate-keys";

describe("duplicateJsonKeys", () => {
  it("finds every key an object holds twice, at its path, with all values in file order", () => {
    const text = '{"a": 1, "b": {"x": [1, {"y": "\\"}", "y": null}], "x": true}, "a": [2, 3], "c\\"d": 0, "c\\"d": -1.5e3, "a": {}}';
    expect(duplicateJsonKeys(text)).toEqual([
      { path: "b.x[1].y", key: "y", values: ['"}', null] },
      { path: "b.x", key: "x", values: [[1, { y: null }], true] },
      { path: "a", key: "a", values: [1, [2, 3], {}] },
      { path: '["c\\"d"]', key: 'c"d', values: [0, -1500] },
    ]);
  });

  it("finds nothing in JSON without repeated keys (the same key in two objects is no repeat)", () => {
    expect(duplicateJsonKeys('\uFEFF { "hooks": { "Stop": [ { "hooks": [] } ], "SessionEnd": [ { "hooks": [] } ] }, "x": [ ], "y": { } } ')).toEqual([]);
    expect(duplicateJsonKeys("[1, 2, 3]")).toEqual([]);
    expect(duplicateJsonKeys('"just a string"')).toEqual([]);
  });
});

describe("a hook list written twice, in every JSON dialect", () => {
  it("Loom: both onToolCall lists are imported, in file order, with a warning that Loom ran only the last", () => {
    const result = importConfig("loom", '{"name": "p", "hooks": {"onToolCall": [{"action": "log"}], "onComplete": [{"action": "log"}], "onToolCall": [{"action": "approve"}]}}');
    expect(result.hooks.map((h) => [h.event, h.action.type])).toEqual([
      ["tool.pre", "log"],
      ["tool.pre", "approve"],
      ["session.end", "log"],
    ]);
    expect(result.warnings).toContainEqual({ path: "hooks.onToolCall", message: expect.stringMatching(/written 2 times in hooks: JSON keeps only the last, so Loom ran only its last list \(1 entry\)/) });
  });

  it("Codex and Cursor hook files: the same", () => {
    const codex = importConfig("codex", '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./a.sh"}]}], "PreToolUse": [{"hooks": [{"type": "command", "command": "./b.sh"}]}]}}');
    expect(codex.hooks.map((h) => (h.action as { command: string }).command)).toEqual(["./a.sh", "./b.sh"]);
    expect(codex.warnings.find((w) => w.path === "hooks.PreToolUse")?.message).toMatch(/so Codex ran only its last list/);
    const cursor = importConfig("cursor", '{"version": 1, "hooks": {"stop": [{"command": "./a.sh"}], "stop": [{"command": "./b.sh"}, {"command": "./c.sh"}]}}');
    expect(cursor.hooks.map((h) => (h.action as { command: string }).command)).toEqual(["./a.sh", "./b.sh", "./c.sh"]);
    expect(cursor.warnings.find((w) => w.path === "hooks.stop")?.message).toMatch(/Cursor ran only its last list \(2 entries\); all 2 lists are imported/);
  });

  it("a key written twice elsewhere is read as the runtime reads it (the last), with a warning at its path", () => {
    const result = importConfig("loom", '{"name": "p", "maxTurns": 5, "maxTurns": 9}');
    expect(result.agents[0].maxTurns).toBe(9);
    expect(result.warnings).toContainEqual({ path: "maxTurns", message: '"maxTurns" is written 2 times: JSON keeps only the last value, so that one is read (as Loom reads it)' });
  });
});
