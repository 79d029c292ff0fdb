import { describe, expect, it } from "vitest";
import { detectDialect, exportConfig, type DialectName } from "./index";
import { fixtureFolder } from "./fixtures/fixture-files";

const folders: [string, DialectName][] = [
  ["claude-code", "claude-code"],
  ["herdctl", "herdctl"],
  ["loom", "loom"],
  ["tailored-ai", "tailored-ai"],
  ["agentopology", "agentopology"],
  ["standard-agents", "standard-agents"],
];

describe("detectDialect", () => {
  for (const [folder, dialect] of folders) {
    it(`recognises every ${folder} fixture with a marker-level confidence`, () => {
      for (const [file, content] of Object.entries(fixtureFolder(folder))) {
        const detection = detectDialect(content);
        expect({ file, dialect: detection.dialect }).toEqual({ file, dialect });
        expect(detection.confidence).toBeGreaterThanOrEqual(0.9);
        expect(detection.why).not.toBe("");
      }
    });
  }

  it("recognises a folder of Standard Agents modules and Hookplane's own export", () => {
    expect(detectDialect(fixtureFolder("standard-agents")).dialect).toBe("standard-agents");
    const own = exportConfig("hookplane", { agents: [{ name: "a" }], hooks: [], schedules: [] });
    expect(detectDialect(own.content)).toMatchObject({ dialect: "hookplane", confidence: 0.99 });
    expect(detectDialect(exportConfig("hookplane", { agents: [], hooks: [], schedules: [] }, { format: "json" }).content).dialect).toBe("hookplane");
  });

  it("uses weaker resemblances when no marker is present", () => {
    expect(detectDialect("name: a\nsystem_prompt: hi\n")).toMatchObject({ dialect: "herdctl", confidence: 0.75 });
    expect(detectDialect('{"name": "a", "systemPrompt": "hi"}')).toMatchObject({ dialect: "loom", confidence: 0.7 });
    expect(detectDialect("cron:\n  jobs: []\n")).toMatchObject({ dialect: "tailored-ai" });
  });

  it("says so when nothing matches", () => {
    expect(detectDialect("just: text\n")).toEqual({ dialect: null, confidence: 0, why: "no dialect marker found" });
    expect(detectDialect("{ not json").dialect).toBeNull();
  });
});

describe("detectDialect on JSON that is cut off or broken", () => {
  const settings = JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard" }] }] } }, null, 2);

  it("says a truncated file ends early, at its last line, instead of 'not JSON, YAML or .at'", () => {
    const cut = settings.slice(0, settings.indexOf('"command": "guard"'));
    const detection = detectDialect(cut);
    expect(detection.dialect).toBeNull();
    expect(detection.why).toBe(`JSON ends early at line ${cut.trimEnd().split("\n").length}: an object, list or string is not closed (is the file cut off?)`);
  });

  it("places a wrong character at its line and column", () => {
    expect(detectDialect('{\n  "hooks": {,\n}').why).toBe("invalid JSON at line 2, column 13");
  });

  it("still says neither for text that is no JSON at all", () => {
    expect(detectDialect("::: [").why).toBe("neither JSON, YAML nor .at source");
  });
});
