/**
 * The modify verb with the real Gemini CLI (HOOKPLANE_GEMINI_BIN, 0.61): a hook's rewrite of the
 * shell command (BeforeTool `tool_input`) is what runs. Gemini talks to a local fake of the
 * Gemini API; its hooks call the real `hookplane` CLI.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { findAgentCli, useAgentWorkspace, useBridgeHarness } from "@/test/bridge-harness";
import { startFakeGemini } from "@/test/bridges/fake-gemini-api";
import * as geminiRoute from "@/app/api/v1/ingest/gemini-cli/route";

const GEMINI = findAgentCli("HOOKPLANE_GEMINI_BIN", "gemini");

describe.skipIf(!GEMINI)(GEMINI ? "the real Gemini CLI and changed calls" : "Gemini CLI not installed: set HOOKPLANE_GEMINI_BIN to run these", () => {
  const h = useBridgeHarness({
    ingest: { method: "POST", path: "/api/v1/ingest/gemini-cli", handler: geminiRoute.POST },
    agents: {
      rewriting: [{ id: "touch-rewritten", event: "tool.pre", matcher: "run_shell_command", when: "toolInput.command: /^touch /", action: { type: "modify", input: { command: "touch rewritten" } } }],
    },
  });
  const workspace = useAgentWorkspace(h, "hp-gemini-modify-", startFakeGemini);

  function project(name: string): string {
    const dir = path.join(workspace.work, name);
    const home = path.join(dir, "home");
    mkdirSync(path.join(dir, ".gemini"), { recursive: true });
    mkdirSync(path.join(home, ".gemini"), { recursive: true });
    const bridge = [{ hooks: [{ type: "command", command: "hookplane hook gemini-cli --agent rewriting" }] }];
    writeFileSync(path.join(dir, ".gemini", "settings.json"), JSON.stringify({ hooks: { BeforeTool: bridge, AfterTool: bridge } }));
    writeFileSync(path.join(home, ".gemini", "settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: true } } }));
    writeFileSync(path.join(home, ".gemini", "trustedFolders.json"), JSON.stringify({ [dir]: "TRUST_FOLDER" }));
    return dir;
  }

  test("a hook's rewrite is what runs: the model asked for `touch original`, the file made is `rewritten`", async () => {
    const dir = project("rewrite");
    const out = await workspace.run(GEMINI!, ["-p", "bash: touch original", "--yolo", "--output-format", "json"], dir, {
      HOME: path.join(dir, "home"),
      GOOGLE_GEMINI_BASE_URL: workspace.fake.url,
      GEMINI_API_KEY: "fake",
    }).done;
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(path.join(dir, "original"))).toBe(false);
    expect(existsSync(path.join(dir, "rewritten"))).toBe(true);
  }, 120_000);
});
