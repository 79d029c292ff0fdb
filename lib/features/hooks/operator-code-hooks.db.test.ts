import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { tryHooks } from "@/lib/features/hooks/hook-trial";
import { loadConfig } from "@/lib/platform/config/config";
import { loadOperatorCodeHooks, operatorCodeHooks } from "./operator-code-hooks";
import { setEnv } from "@/test/config-env";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

let t: TestDatabase;
let dir: string;
const admin = { kind: "user" as const, id: "a", label: "admin@example.com", role: "admin" as const, projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: false };

beforeAll(async () => {
  t = await createTestDatabase();
  dir = mkdtempSync(path.join(tmpdir(), "hookplane-code-hooks-"));
  writeFileSync(
    path.join(dir, "no_passwords.mjs"),
    `export default {
      type: "after_tool_call_success",
      id: "no_passwords",
      execute: (_ctx, payload) => JSON.stringify(payload.toolInput ?? {}).includes("password")
        ? { continue: false, reason: "inputs must not carry passwords" }
        : { continue: true },
    };`,
  );
  writeFileSync(path.join(dir, "broken.mjs"), "export default { nope: true };");
});
afterAll(async () => {
  await t.drop();
  rmSync(dir, { recursive: true, force: true });
});

const codeHook = { id: "guard", event: "tool.pre" as const, scope: "global", enabled: true, mode: "enforce" as const, action: { type: "code" as const, module: "no_passwords" } };

test("without the operator's switch the folder is not loaded and code hooks fail with a clear reason", async () => {
  expect(await loadOperatorCodeHooks(loadConfig({ HOOKPLANE_HOOKS_DIR: dir }))).toBeUndefined();
  const result = await tryHooks(t.db, admin, { hook: codeHook, event: { type: "tool.pre", toolName: "shell", toolInput: { password: "x" } } });
  expect(result.verdict).toBe("block");
  expect(result.reason).toMatch(/HOOKPLANE_ALLOW_CODE_EXECUTION=1/);
});

test("with the switch, modules in the folder are discovered and decide; a broken one is left out", async () => {
  const registry = await loadOperatorCodeHooks(loadConfig({ HOOKPLANE_HOOKS_DIR: dir, HOOKPLANE_ALLOW_CODE_EXECUTION: "1" }));
  expect(registry?.ids()).toEqual(["no_passwords"]);
  expect(operatorCodeHooks()).toBe(registry);
  const previous = process.env.HOOKPLANE_ALLOW_CODE_EXECUTION;
  setEnv({ HOOKPLANE_ALLOW_CODE_EXECUTION: "1" });
  try {
    const blocked = await tryHooks(t.db, admin, { hook: codeHook, event: { type: "tool.pre", toolName: "shell", toolInput: { password: "hunter2" } } });
    expect(blocked).toMatchObject({ verdict: "block", reason: expect.stringContaining("must not carry passwords") });
    const allowed = await tryHooks(t.db, admin, { hook: codeHook, event: { type: "tool.pre", toolName: "shell", toolInput: { command: "ls" } } });
    expect(allowed.verdict).toBe("allow");
  } finally {
    setEnv({ HOOKPLANE_ALLOW_CODE_EXECUTION: previous });
  }
});
