import { existsSync, mkdtempSync, realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { plainShell } from "@/lib/core/hooks/ports";
import { loadConfig } from "@/lib/platform/config/config";
import { setEnv } from "@/test/config-env";
import { serverShellPolicy, type ShellPolicy } from "@/lib/platform/security/code-execution";
import { createToolRegistry as createRegistry, type ToolRegistryOptions } from "./tool-registry";

let workspace: string;

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), "hookplane-shell-")));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

it("is refused while running code is off, and starts nothing", async () => {
  const restore = setEnv({ HOOKPLANE_ALLOW_CODE_EXECUTION: undefined });
  try {
    const result = await createRegistry({ workspaceDir: workspace }).call("shell", { command: "touch ran" });
    expect(result).toEqual({ output: expect.stringMatching(/^refused: running code on this server is off .*HOOKPLANE_ALLOW_CODE_EXECUTION=1/), isError: true });
    expect(existsSync(path.join(workspace, "ran"))).toBe(false);
  } finally {
    restore();
  }
});

// The same behaviour started plainly and through this machine's sandbox (switch on).
const shells: [string, () => ShellPolicy][] = [
  ["plain sh", () => ({ refusal: undefined, launcher: plainShell })],
  ["the server's sandbox", () => serverShellPolicy(loadConfig({ ...process.env, HOOKPLANE_ALLOW_CODE_EXECUTION: "1" }))],
];

describe.each(shells)("shell tool (%s)", (_name, policy) => {
  const createToolRegistry = (options: ToolRegistryOptions) => createRegistry({ ...options, shell: policy() });

  it("runs in the workspace and returns stdout and stderr", async () => {
    const tools = createToolRegistry({ workspaceDir: workspace });
    const result = await tools.call("shell", { command: "pwd; echo oops >&2" });
    expect(result).toEqual({ output: `${workspace}\noops\n`, isError: false });
  });

  it("reports a non-zero exit as an error with the code", async () => {
    const tools = createToolRegistry({ workspaceDir: workspace });
    const result = await tools.call("shell", { command: "echo nope; exit 3" });
    expect(result).toEqual({ output: "nope\n\n[exit code 3]", isError: true });
  });

  it("does not leak the server environment", async () => {
    process.env.HOOKPLANE_TEST_SECRET = "s3cret";
    try {
      const tools = createToolRegistry({ workspaceDir: workspace });
      const result = await tools.call("shell", { command: "echo \"[$HOOKPLANE_TEST_SECRET]\"" });
      expect(result.output).toBe("[]\n");
    } finally {
      delete process.env.HOOKPLANE_TEST_SECRET;
    }
  });

  it("kills the whole process group on timeout", async () => {
    const tools = createToolRegistry({ workspaceDir: workspace, shellTimeoutMs: 300 });
    const started = Date.now();
    // The grandchild would create the file after 1.5 s if it survived the kill.
    const result = await tools.call("shell", { command: "(sleep 1.5; touch survived) & sleep 10" });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.isError).toBe(true);
    expect(result.output).toContain("[timed out after 300 ms; process group killed]");
    await new Promise((r) => setTimeout(r, 1800));
    expect(existsSync(path.join(workspace, "survived"))).toBe(false);
  });

  it("kills the command when the signal aborts", async () => {
    const tools = createToolRegistry({ workspaceDir: workspace });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await tools.call("shell", { command: "sleep 10" }, controller.signal);
    expect(result).toEqual({ output: "[cancelled; process group killed]", isError: true });
  });

  it("caps the output", async () => {
    const tools = createToolRegistry({ workspaceDir: workspace, outputCap: 100 });
    const result = await tools.call("shell", { command: "yes | head -c 100000" });
    expect(result.isError).toBe(false);
    expect(result.output).toMatch(/^(y\n){50}\n\[output truncated: 100000 bytes, showing the first 100\]$/);
  });

  it("does not wait for background children after the shell exits", async () => {
    const tools = createToolRegistry({ workspaceDir: workspace });
    const started = Date.now();
    const result = await tools.call("shell", { command: "sleep 5 & echo done" });
    expect(result.output).toBe("done\n");
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
