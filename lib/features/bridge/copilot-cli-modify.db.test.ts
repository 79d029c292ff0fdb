/**
 * The modify verb with the real Copilot CLI (HOOKPLANE_COPILOT_BIN, 1.0.102): a hook's rewrite of
 * the shell command (preToolUse `modifiedArgs`) is what runs; a rewrite that removes a key is
 * blocked with the reason. Copilot runs offline against a local fake of the Responses API.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { findAgentCli, useAgentWorkspace, useBridgeHarness } from "@/test/bridge-harness";
import { startFakeResponses } from "@/test/bridges/fake-openai-responses";
import * as copilotRoute from "@/app/api/v1/ingest/copilot/route";

const COPILOT = findAgentCli("HOOKPLANE_COPILOT_BIN", "copilot");

describe.skipIf(!COPILOT)(COPILOT ? "the real Copilot CLI and changed calls" : "Copilot CLI not installed: set HOOKPLANE_COPILOT_BIN to run these", () => {
  const h = useBridgeHarness({
    ingest: { method: "POST", path: "/api/v1/ingest/copilot", handler: copilotRoute.POST },
    agents: {
      keeps: [{ id: "touch-rewritten", event: "tool.pre", matcher: "bash", when: "toolInput.command: /^touch /", action: { type: "modify", input: { command: "touch rewritten" } } }],
      removes: [{ id: "drop-description", event: "tool.pre", matcher: "bash", action: { type: "modify", input: { command: "touch rewritten", description: null } } }],
    },
  });
  const workspace = useAgentWorkspace(h, "hp-copilot-modify-", startFakeResponses);

  async function runCopilot(name: string, agent: string) {
    const dir = path.join(workspace.work, name);
    const home = path.join(dir, "home");
    mkdirSync(path.join(dir, ".github", "hooks"), { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(
      path.join(dir, ".github", "hooks", "hookplane.json"),
      JSON.stringify({ version: 1, hooks: { preToolUse: [{ type: "command", bash: `hookplane hook copilot --agent ${agent} --event preToolUse`, timeoutSec: 60 }] } }),
    );
    spawnSync("git", ["init", "-q"], { cwd: dir });
    const out = await workspace.run(COPILOT!, ["-p", "bash: touch original"], dir, {
      HOME: home,
      COPILOT_HOME: home,
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_BASE_URL: `${workspace.fake.url}/v1`,
      COPILOT_PROVIDER_WIRE_API: "responses",
      COPILOT_PROVIDER_API_KEY: "x",
      COPILOT_MODEL: "fake-model",
      COPILOT_ALLOW_ALL: "true",
      COPILOT_AUTO_UPDATE: "false",
    }).done;
    expect(out.code, out.stderr).toBe(0);
    return dir;
  }

  test("a rewrite that keeps every key is what runs: asked `touch original`, the file made is `rewritten`", async () => {
    const dir = await runCopilot("keeps", "keeps");
    expect(existsSync(path.join(dir, "original"))).toBe(false);
    expect(existsSync(path.join(dir, "rewritten"))).toBe(true);
  }, 120_000);

  test("a rewrite that removes a key is blocked: neither file is made, and the model is told why", async () => {
    const dir = await runCopilot("removes", "removes");
    expect(existsSync(path.join(dir, "original"))).toBe(false);
    expect(existsSync(path.join(dir, "rewritten"))).toBe(false);
    expect(JSON.stringify(workspace.fake.requests.map((r) => r.body.input))).toContain("Copilot CLI cannot remove description from a tool's input");
  }, 120_000);
});
