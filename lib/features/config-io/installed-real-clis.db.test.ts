/**
 * Every coding agent that installs here, run for real through what `hookplane install` wrote
 * (issue 28, "each through hookplane install"), on a machine with no `hookplane` on PATH: a guard
 * blocks `rm -rf` (the folder survives, the ledger names the hook and the person), Hookplane down
 * fails closed (the command never runs), and the CLI moved or deleted after install fails closed
 * too, never open. Each agent's block skips, saying so, when its CLI is not installed
 * (HOOKPLANE_CLAUDE_BIN, HOOKPLANE_CODEX_BIN, HOOKPLANE_GEMINI_BIN, HOOKPLANE_COPILOT_BIN).
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { listRuns } from "@/db/queries/runs";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { INGEST_ROUTES } from "@/lib/features/bridge/ingest-routes";
import { closedPort, findAgentCli, HOOKPLANE_CLI, useAgentWorkspace, useBridgeHarness, type AgentWorkspace } from "@/test/bridge-harness";
import { startFakeAnthropic } from "@/test/bridges/fake-anthropic-api";
import { startFakeGemini } from "@/test/bridges/fake-gemini-api";
import { startFakeResponses } from "@/test/bridges/fake-openai-responses";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import { addPerson, addToken } from "@/test/people";
import * as claudeSettings from "@/app/api/v1/ingest/claude-code/settings/route";
import * as codexSettings from "@/app/api/v1/ingest/codex/settings/route";
import * as geminiSettings from "@/app/api/v1/ingest/gemini-cli/settings/route";
import * as copilotSettings from "@/app/api/v1/ingest/copilot/settings/route";
import * as installsRoute from "@/app/api/v1/ingest/installs/route";

const AGENT = "guarded";
/** Node's own folder and the system's: what the agents need, and no `hookplane`. */
const BARE_PATH = [path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].filter((d) => !existsSync(path.join(d, "hookplane"))).join(":");

const h = useBridgeHarness({
  ingest: { method: "POST", path: "/api/v1/ingest/claude-code", handler: INGEST_ROUTES["claude-code"] },
  agents: { [AGENT]: [{ id: "no-rm", event: "tool.pre", action: { type: "block", reason: "No rm -rf here", denyIf: "rm -rf" } }] },
  routes: [
    { method: "POST", path: "/api/v1/ingest/codex", handler: INGEST_ROUTES.codex },
    { method: "POST", path: "/api/v1/ingest/gemini-cli", handler: INGEST_ROUTES["gemini-cli"] },
    { method: "POST", path: "/api/v1/ingest/copilot", handler: INGEST_ROUTES.copilot },
    { method: "GET", path: "/api/v1/ingest/claude-code/settings", handler: claudeSettings.GET },
    { method: "GET", path: "/api/v1/ingest/codex/settings", handler: codexSettings.GET },
    { method: "GET", path: "/api/v1/ingest/gemini-cli/settings", handler: geminiSettings.GET },
    { method: "GET", path: "/api/v1/ingest/copilot/settings", handler: copilotSettings.GET },
    { method: "POST", path: "/api/v1/ingest/installs", handler: installsRoute.POST },
  ],
});
let dev: { token: string; userId: string };

beforeAll(async () => {
  const person = await addPerson(h.t.db, { email: "dev@example.com", role: "operator" });
  dev = { token: (await addToken(h.t.db, { role: "operator", kind: "bridge", userId: person.id, name: "dev-laptop" })).token, userId: person.id };
});

interface CodingAgentUnderTest {
  kind: "claude-code" | "codex" | "gemini-cli" | "copilot";
  bin: string | undefined;
  startFake: () => Promise<{ url: string; close(): Promise<void> }>;
  /** Everything but the hooks: the agent's own settings for a run against the fake. */
  prepare(dir: string, home: string, fakeUrl: string): void;
  /** The agent's command line and environment for one prompt. */
  command(prompt: string, dir: string, home: string, fakeUrl: string): { args: string[]; env: Record<string, string> };
}

const AGENTS: CodingAgentUnderTest[] = [
  {
    kind: "claude-code",
    bin: findAgentCli("HOOKPLANE_CLAUDE_BIN", "claude"),
    startFake: startFakeAnthropic,
    prepare: () => {},
    command: (prompt, _dir, home, url) => ({
      args: ["-p", prompt, "--output-format", "json", "--allowedTools", "Bash"],
      env: { HOME: home, ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-ant-fake", ANTHROPIC_MODEL: "claude-sonnet-4-5", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
    }),
  },
  {
    kind: "codex",
    bin: findAgentCli("HOOKPLANE_CODEX_BIN", "codex"),
    startFake: startFakeResponses,
    prepare: (dir, home, url) => {
      const config = ['model = "fake-model"', 'model_provider = "fake"', 'approval_policy = "never"', 'sandbox_mode = "danger-full-access"', "[model_providers.fake]", 'name = "fake"', `base_url = "${url}/v1"`, 'wire_api = "responses"', 'env_key = "FAKE_OPENAI_KEY"', `[projects."${dir}"]`, 'trust_level = "trusted"'];
      writeFileSync(path.join(home, "config.toml"), config.join("\n"));
      spawnSync("git", ["init", "-q"], { cwd: dir });
    },
    command: (prompt, _dir, home) => ({ args: ["exec", "--dangerously-bypass-hook-trust", prompt], env: { HOME: home, CODEX_HOME: home, FAKE_OPENAI_KEY: "x" } }),
  },
  {
    kind: "gemini-cli",
    bin: findAgentCli("HOOKPLANE_GEMINI_BIN", "gemini"),
    startFake: startFakeGemini,
    prepare: (dir, home) => {
      mkdirSync(path.join(home, ".gemini"), { recursive: true });
      writeFileSync(path.join(home, ".gemini", "settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: true } } }));
      writeFileSync(path.join(home, ".gemini", "trustedFolders.json"), JSON.stringify({ [dir]: "TRUST_FOLDER" }));
    },
    command: (prompt, _dir, home, url) => ({ args: ["-p", prompt, "--yolo", "--output-format", "json"], env: { HOME: home, GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: "fake" } }),
  },
  {
    kind: "copilot",
    bin: findAgentCli("HOOKPLANE_COPILOT_BIN", "copilot"),
    startFake: startFakeResponses,
    prepare: (dir) => spawnSync("git", ["init", "-q"], { cwd: dir }) && undefined,
    command: (prompt, _dir, home, url) => ({
      args: ["-p", prompt],
      env: { HOME: home, COPILOT_HOME: home, COPILOT_OFFLINE: "true", COPILOT_PROVIDER_BASE_URL: `${url}/v1`, COPILOT_PROVIDER_WIRE_API: "responses", COPILOT_PROVIDER_API_KEY: "x", COPILOT_MODEL: "fake-model", COPILOT_ALLOW_ALL: "true", COPILOT_AUTO_UPDATE: "false" },
    }),
  },
];

for (const agent of AGENTS) {
  describe.skipIf(!agent.bin)(agent.bin ? `${agent.kind}, installed with hookplane install` : `${agent.kind} not installed: set its HOOKPLANE_*_BIN to run these`, () => {
    const workspace: AgentWorkspace<{ url: string; close(): Promise<void> }> = useAgentWorkspace(h, `hp-installed-${agent.kind}-`, agent.startFake);

    /** A machine's project with this agent's settings installed by `cli` (this checkout's, or a copy). */
    async function installedProject(name: string, cli = HOOKPLANE_CLI) {
      const dir = path.join(workspace.work, name);
      const home = path.join(dir, "home");
      mkdirSync(home, { recursive: true });
      agent.prepare(dir, home, workspace.fake.url);
      const env = { HOME: home, HOOKPLANE_CONFIG_DIR: path.join(home, ".config", "hookplane"), HOOKPLANE_URL: h.server.url, HOOKPLANE_TOKEN: dev.token, PATH: BARE_PATH };
      const installed = await runHookplaneCli(["install", agent.kind, "--agent", AGENT, "--level", "project", "--dir", dir], "", env, cli);
      expect(installed.code, installed.stdout + installed.stderr).toBe(0);
      return { dir, home };
    }

    function runAgent(project: { dir: string; home: string }, prompt: string, url = h.server.url) {
      const { args, env } = agent.command(prompt, project.dir, project.home, workspace.fake.url);
      return workspace.run(agent.bin!, args, project.dir, { ...env, HOOKPLANE_URL: url, HOOKPLANE_TOKEN: dev.token, PATH: BARE_PATH }).done;
    }

    test("the guard blocks rm -rf with no hookplane on PATH; the ledger names the hook and the person", async () => {
      const project = await installedProject("block");
      const target = path.join(project.dir, "keep-me");
      mkdirSync(target);
      const since = Date.now();
      const out = await runAgent(project, `bash: rm -rf ${target}`);
      expect(existsSync(target), out.output).toBe(true);
      const run = (await listRuns(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).find((r) => r.source === agent.kind && r.createdAt.getTime() >= since - 1000)!;
      expect(run, out.output).toBeDefined();
      expect(run.actorKey).toBe(`user:${dev.userId}`);
      const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
      expect(ledger.filter((l) => l.verdict === "block").map((l) => [l.hookKey, l.reason, l.actorKey])).toEqual([["no-rm", "No rm -rf here", `user:${dev.userId}`]]);
    }, 120_000);

    test("Hookplane down: the command never runs (up, the same command runs)", async () => {
      const project = await installedProject("down");
      const control = path.join(project.dir, "ran-while-up");
      const up = await runAgent(project, `bash: touch ${control}`);
      expect(existsSync(control), up.output).toBe(true);
      const marker = path.join(project.dir, "ran");
      const out = await runAgent(project, `bash: touch ${marker}`, `http://127.0.0.1:${await closedPort()}`);
      expect(existsSync(marker), out.output).toBe(false);
    }, 120_000);

    test("the CLI deleted after install: the gate blocks instead of failing open", async () => {
      // Installed from a copy of the CLI, then the copy is gone (the checkout moved or deleted).
      const copy = path.join(workspace.work, `cli-${agent.kind}`);
      cpSync(path.dirname(HOOKPLANE_CLI), path.join(copy, "bin"), { recursive: true });
      cpSync(path.join(path.dirname(HOOKPLANE_CLI), "..", "package.json"), path.join(copy, "package.json"));
      const project = await installedProject("moved", path.join(copy, "bin", "hookplane.cjs"));
      const control = path.join(project.dir, "ran-before");
      const before = await runAgent(project, `bash: touch ${control}`);
      expect(existsSync(control), before.output).toBe(true);
      rmSync(copy, { recursive: true });
      const marker = path.join(project.dir, "ran");
      const out = await runAgent(project, `bash: touch ${marker}`);
      expect(existsSync(marker), out.output).toBe(false);
    }, 120_000);
  });
}
