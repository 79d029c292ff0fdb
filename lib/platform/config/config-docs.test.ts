import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONFIG_PATTERNS, CONFIG_SCHEMA, type VariableSpec } from "./config-schema";
import { configDocs, DOCS_BEGIN, DOCS_END } from "./config-docs";

const readme = readFileSync("docs/operations.md", "utf8");
const block = readme.slice(readme.indexOf(DOCS_BEGIN), readme.indexOf(DOCS_END) + DOCS_END.length);
/** The server table's rows: variable → default cell. */
const serverRows = new Map(
  block
    .split("\n")
    .map((line) => /^\| `([^`]+)` \| (.*?) \| .* \|$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1], m[2]]),
);

describe("docs/operations.md's environment table", () => {
  it("is the one generated from the schema (npm run docs:config)", () => {
    expect(block).toBe(configDocs());
  });

  it("lists every variable of the schema with its default", () => {
    for (const [name, spec] of Object.entries(CONFIG_SCHEMA) as [string, VariableSpec][]) {
      expect(serverRows.has(name), `${name} is missing from docs/operations.md`).toBe(true);
      const expected = typeof spec.default === "string" ? `\`${spec.default}\`` : spec.defaultText;
      expect(serverRows.get(name), `${name}'s default`).toBe(expected);
    }
  });

  it("lists no variable the schema lacks", () => {
    const known = new Set([...Object.keys(CONFIG_SCHEMA), ...Object.keys(CONFIG_PATTERNS)]);
    const serverTable = block.slice(0, block.indexOf("The `hookplane` command"));
    const listed = [...serverTable.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
    expect(listed.filter((name) => !known.has(name))).toEqual([]);
    expect(listed.length).toBe(known.size);
  });
});
