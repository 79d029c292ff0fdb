import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { useBuiltNextConfig } from "./next-built-config";

const VARIABLE = "__NEXT_PRIVATE_STANDALONE_CONFIG";
let root: string;
let before: string | undefined;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "hookplane-next-config-"));
  before = process.env[VARIABLE];
  delete process.env[VARIABLE];
});
afterEach(() => {
  if (before === undefined) delete process.env[VARIABLE];
  else process.env[VARIABLE] = before;
  rmSync(root, { recursive: true, force: true });
});

test("the build's serialized config is handed to Next, from the build folder the config names", () => {
  mkdirSync(path.join(root, "out"));
  writeFileSync(path.join(root, "out", "required-server-files.json"), JSON.stringify({ version: 1, config: { distDir: "out", poweredByHeader: false } }));
  expect(useBuiltNextConfig(root, "out")).toBe(true);
  expect(JSON.parse(process.env[VARIABLE]!)).toEqual({ distDir: "out", poweredByHeader: false });
});

test("without a build, or with a file that is not one, nothing is set and Next loads next.config.ts as before", () => {
  expect(useBuiltNextConfig(root, undefined)).toBe(false);
  mkdirSync(path.join(root, ".next"));
  for (const content of ["not json", JSON.stringify({ version: 1 }), JSON.stringify({ config: "text" })]) {
    writeFileSync(path.join(root, ".next", "required-server-files.json"), content);
    expect(useBuiltNextConfig(root, undefined)).toBe(false);
  }
  expect(process.env[VARIABLE]).toBeUndefined();
});
