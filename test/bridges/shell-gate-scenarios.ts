/**
 * Test support: the scenarios a real agent CLI whose shell tool Hookplane gates runs the same way
 * (Codex, Copilot CLI, Qwen Code, Factory's droid), with the gates agent of useBridgeHarness
 * holding shellGateHooks: `rm -rf` blocked with "No rm -rf here", `touch` asked of a person. A
 * blocked command never runs and its session is a run of the agent; an approved command runs, a
 * denied one does not; with Hookplane down the command is blocked (fail closed). Each agent's
 * test keeps its project files and how its CLI is started.
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { listRuns } from "@/db/queries/runs";
import { closedPort, noRmHook, type BridgeHarness } from "../bridge-harness";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

/** The hooks these scenarios need on the gates agent, for the agent's shell tool. */
export function shellGateHooks(shellTool: string): Record<string, unknown>[] {
  return [
    noRmHook(shellTool),
    { id: "ask-touch", event: "tool.pre", matcher: shellTool, when: "toolInput.command: /^touch /", action: { type: "approve", timeoutMs: 120_000, onTimeout: "deny" } },
  ];
}

export interface GatedCli {
  /** The runs' source. */
  source: string;
  /** The agent's name for its shell tool. */
  shellTool: string;
  /** A fresh project folder whose hook file bridges to the gates agent. */
  project(name: string): string;
  run(dir: string, prompt: string, env?: Record<string, string>): Promise<{ code: number | null; output: string }>;
  /** What the fake model was sent, as one text. */
  modelSaw(): string;
  /** The shell command tried with Hookplane down (default `touch MARKER`). */
  downCommand?: (marker: string) => string;
  /** What the CLI's output says with Hookplane down, where it says it. */
  downSays?: RegExp;
  /** What the model is told with Hookplane down, where the CLI passes the hook's refusal on. */
  downModelSays?: RegExp;
}

export function shellGateScenarios(h: BridgeHarness, cli: GatedCli) {
  test("a blocked rm -rf never runs; the session is a run of the agent", async () => {
    const dir = cli.project("block");
    const target = path.join(dir, "keep-me");
    mkdirSync(target);
    const out = await cli.run(dir, `bash: rm -rf ${target}`);
    expect(out.code, out.output).toBe(0);
    expect(existsSync(target)).toBe(true);
    // By its tool too: agents that share a source (those speaking Claude Code's format) run here side by side.
    const run = (await listRuns(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).find((r) => r.source === cli.source && r.blocked && r.toolsUsed.includes(cli.shellTool));
    expect(run).toMatchObject({ agentId: h.agentIds.gates, toolsUsed: [cli.shellTool] });
    expect(cli.modelSaw()).toContain("No rm -rf here");
  }, 120_000);

  test("a command waits for a person: approved it runs, denied it does not", async () => {
    for (const decision of ["approve", "deny"] as const) {
      const dir = cli.project(`touch-${decision}`);
      const marker = path.join(dir, "approved");
      const done = cli.run(dir, `bash: touch ${marker}`);
      const approval = await h.pendingApproval((a) => JSON.stringify(a.toolInput).includes(marker));
      expect((await h.decide(approval.id, { decision })).status).toBe(200);
      const out = await done;
      expect(out.code, out.output).toBe(0);
      // Copilot's shell tool runs the command in its own shell session, which on a loaded machine
      // may still be starting when the CLI reports the turn: give an approved command a moment.
      if (decision === "approve") await expect.poll(() => existsSync(marker), { timeout: 5_000, message: `approved, never ran:\n${out.output}\nmodel saw: ${cli.modelSaw().slice(-2000)}` }).toBe(true);
      else expect(existsSync(marker), out.output).toBe(false);
    }
  }, 180_000);

  test("fail closed: with Hookplane down the command is blocked", async () => {
    const dir = cli.project("down");
    const marker = path.join(dir, "marker");
    const out = await cli.run(dir, `bash: ${cli.downCommand?.(marker) ?? `touch ${marker}`}`, { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}` });
    expect(existsSync(marker), out.output).toBe(false);
    if (cli.downSays) expect(out.output).toMatch(cli.downSays);
    if (cli.downModelSays) expect(cli.modelSaw()).toMatch(cli.downModelSays);
  }, 120_000);
}
