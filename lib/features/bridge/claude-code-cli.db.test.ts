/**
 * The real Claude Code CLI under Hookplane's hooks, end to end: `claude -p` runs against a local
 * fake of Anthropic's Messages API (testing/fake-anthropic-api.ts scripts the tool calls), its
 * project settings are the Claude Code EXPORT of an agent's hooks (so the bridge the export writes
 * is what enforces), and its hooks call the real `hookplane` CLI, which talks to the real route
 * handlers on a fresh database.
 *
 * Claude Code is not a dependency of Hookplane (its npm package is ~240 MB with a native binary):
 * these tests run when HOOKPLANE_CLAUDE_BIN names its `claude` (or `claude` is on PATH), and skip
 * with a message otherwise. `npm i @anthropic-ai/claude-code` anywhere gives you one.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { getApprovalInAnyProject } from "@/db/queries/approvals";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRun, listRuns, type RunRow } from "@/db/queries/runs";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import { closedPort, findAgentCli, useAgentWorkspace, useBridgeHarness, type BridgeHarness } from "@/test/bridge-harness";
import { startTcpProxy } from "@/test/tcp-proxy";
import { startFakeAnthropic } from "@/test/bridges/fake-anthropic-api";
import { HAS_TMUX, openTerminal } from "@/test/bridges/tmux-terminal";
import { exportConfig, importConfig } from "@/lib/core/dialects";
import type { HookSpecInput } from "@/lib/core/hooks/spec";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import * as offlineRoute from "@/app/api/v1/ingest/offline/route";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

const CLAUDE = findAgentCli("HOOKPLANE_CLAUDE_BIN", "claude");
/** Claude Code 2.1.295 added `onFailure: "block"` on command and http hooks; older versions ignore the field. */
const HONOURS_ON_FAILURE = (() => {
  const version = CLAUDE ? /(\d+)\.(\d+)\.(\d+)/.exec(spawnSync(CLAUDE, ["--version"], { encoding: "utf8" }).stdout ?? "") : null;
  if (!version) return false;
  const [major, minor, patch] = version.slice(1).map(Number);
  return major > 2 || (major === 2 && (minor > 1 || (minor === 1 && patch >= 295)));
})();
const SKIP = "Claude Code CLI not installed: set HOOKPLANE_CLAUDE_BIN to its `claude` (npm i @anthropic-ai/claude-code) to run these";
const AGENT = "guarded";
/** The same hooks on an agent whose fail mode an admin set to closed. */
const STRICT = "guarded-strict";

const HOOKS: HookSpecInput[] = [
  { id: "no-rm", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "No rm -rf here", denyIf: "rm -rf" } },
  { id: "ask-writes", event: "tool.pre", matcher: "Write", action: { type: "approve", timeoutMs: 120_000, onTimeout: "deny" } },
];

describe.skipIf(!CLAUDE)(CLAUDE ? "the real Claude Code CLI" : SKIP, () => {
  const h: BridgeHarness = useBridgeHarness({
    ingest: { method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST },
    prices: true,
    agents: { [AGENT]: HOOKS, [STRICT]: { spec: { failMode: "closed" }, hooks: HOOKS } },
    // Where the CLI reports what it decided while Hookplane was down.
    routes: [{ method: "POST", path: "/api/v1/ingest/offline", handler: offlineRoute.POST }],
  });
  const workspace = useAgentWorkspace(h, "hp-claude-e2e-", startFakeAnthropic);
  const fake = () => workspace.fake;
  let settings: string;

  /** A project folder whose .claude/settings.json is `settings`, and a HOME of its own. */
  function project(name: string, settings: string): string {
    const dir = path.join(workspace.work, name);
    mkdirSync(path.join(dir, ".claude"), { recursive: true });
    mkdirSync(path.join(dir, "home"), { recursive: true });
    writeFileSync(path.join(dir, ".claude", "settings.json"), settings);
    return dir;
  }

  function runClaude(dir: string, prompt: string, env: Record<string, string> = {}, args: string[] = []) {
    return workspace.run(CLAUDE!, ["-p", prompt, "--output-format", "json", ...args], dir, {
      HOME: path.join(dir, "home"),
      ANTHROPIC_BASE_URL: fake().url,
      ANTHROPIC_API_KEY: "sk-ant-fake",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      // A model the price table knows: newer Claude Code defaults to models it may not know yet.
      ANTHROPIC_MODEL: "claude-sonnet-4-5",
      ...env,
    });
  }

  async function sessionRuns(): Promise<RunRow[]> {
    return (await listRuns(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).filter((r) => r.source === "claude-code");
  }

  async function eventTypes(runId: string) {
    return (await listRunEventsAfter(h.t.db, { runId, after: 0, limit: 1000 })).map((e) => e.type);
  }

  const pendingWrite = () => h.pendingApproval((a) => a.toolName === "Write");

  beforeAll(async () => {
    // The settings Claude Code runs with are the export of the agent's hooks, which re-imports to nothing but the bridge.
    const exported = exportConfig("claude-code", { agents: [], hooks: HOOKS.map((hook) => ({ ...hook, scope: `agent:${AGENT}` })), schedules: [] }, { agent: AGENT });
    settings = exported.content;
    expect(JSON.parse(settings).hooks.PreToolUse[0].hooks[0].command).toBe(`hookplane hook claude-code --agent ${AGENT}`);
    expect(importConfig("claude-code", settings, { agent: AGENT }).hooks).toEqual([]);
  }, 120_000);

  test("a blocked rm -rf never runs; the session is a run of the agent with the denial, and its cost", async () => {
    const dir = project("block", settings);
    const target = path.join(dir, "keep-me");
    mkdirSync(target);
    const { done } = runClaude(dir, `bash: rm -rf ${target}`, {}, ["--allowedTools", "Bash"]);
    const out = await done;
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(target)).toBe(true);
    const [run] = await sessionRuns();
    expect(run).toMatchObject({ agentId: expect.any(String), status: "finished", outcome: "completed", blocked: true, toolsUsed: ["Bash"] });
    // The events the export bridges: PreToolUse for the hooks, the session's start, turn ends and end.
    // Turn ends bring the transcript's usage (two model calls at the fake's 1200/80/300 tokens). At
    // Stop, Claude Code 2.1.197 may not have written the turn's last answer yet (it writes the
    // transcript as it goes): then SessionEnd counts it. Either way each call counts once.
    const types = await eventTypes(run.id);
    expect(types.filter((type) => type !== "model.post")).toEqual(["session.start", "tool.pre", "loop.tool_denied", "turn.end", "session.end"]);
    expect(types.filter((type) => type === "model.post")).toHaveLength(2);
    expect(types.indexOf("model.post")).toBeLessThan(types.indexOf("turn.end"));
    expect(run).toMatchObject({ inputTokens: 3000, outputTokens: 160, cachedTokens: 600 });
    expect(run.costUsd).toBeGreaterThan(0);
    expect(JSON.parse(out.stdout).result).toBe("Done.");
    // The fake saw the deny come back as the tool's result, with the hook's reason.
    const toolResults = fake().requests.flatMap((r) => JSON.stringify(r.body.messages ?? []).match(/No rm -rf here/g) ?? []);
    expect(toolResults.length).toBeGreaterThan(0);
  }, 120_000);

  test("an approved Write runs, a denied one does not: decided through the API while Claude Code waits", async () => {
    for (const decision of ["approve", "deny"] as const) {
      const dir = project(`write-${decision}`, settings);
      const { done } = runClaude(dir, "write notes.txt");
      const approval = await pendingWrite();
      const decided = await h.decide(approval.id, { decision, reason: "checked" });
      expect(decided.status).toBe(200);
      const out = await done;
      expect(out.code, out.stderr).toBe(0);
      expect(existsSync(path.join(dir, "notes.txt")), decision).toBe(decision === "approve");
      if (decision === "approve") expect(readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("written by the fake model\n");
    }
  }, 180_000);

  test("the http export (Claude Code's own http hook, no CLI) enforces the block; with Hookplane down it fails closed from 2.1.295 (onFailure block), open before, as the export warns", async () => {
    const exported = exportConfig("claude-code", { agents: [], hooks: HOOKS.map((hook) => ({ ...hook, scope: `agent:${AGENT}` })), schedules: [] }, { agent: AGENT, bridge: "http", hookplaneUrl: h.server.url });
    expect(exported.warnings.at(-1)!.message).toMatch(/from Claude Code 2\.1\.295 .*\(fail closed\); older versions ignore onFailure .*\(fail open\)/);
    const dir = project("http", exported.content);
    const target = path.join(dir, "keep-me");
    mkdirSync(target);
    const blocked = await runClaude(dir, `bash: rm -rf ${target}`, {}, ["--allowedTools", "Bash"]).done;
    expect(blocked.code, blocked.stderr).toBe(0);
    expect(existsSync(target)).toBe(true);

    const down = project("http-down", exportConfig("claude-code", { agents: [], hooks: HOOKS.map((hook) => ({ ...hook, scope: `agent:${AGENT}` })), schedules: [] }, { agent: AGENT, bridge: "http", hookplaneUrl: `http://127.0.0.1:${await closedPort()}` }).content);
    const marker = path.join(down, "marker");
    const open = await runClaude(down, `bash: touch ${marker}`, {}, ["--allowedTools", "Bash"]).done;
    expect(open.code, open.stderr).toBe(0);
    expect(existsSync(marker)).toBe(!HONOURS_ON_FAILURE);
    if (HONOURS_ON_FAILURE) expect(JSON.stringify(fake().requests.at(-1)!.body.messages)).toContain('blocking because onFailure is \\"block\\"');
  }, 120_000);

  test("the hookplane CLI missing from PATH (exit 127): from 2.1.295 the export's onFailure block refuses the guarded call; before, it runs, as the docs say", async () => {
    const dir = project("no-cli", settings);
    const marker = path.join(dir, "marker");
    // The PATH without the folder the harness puts `hookplane` in (nor any other that has one): the shell answers `not found`.
    const bare = (process.env.PATH ?? "/usr/bin:/bin").split(path.delimiter).filter((d) => d !== "" && !existsSync(path.join(d, "hookplane"))).join(path.delimiter);
    const { done } = runClaude(dir, `bash: touch ${marker}`, { PATH: bare }, ["--allowedTools", "Bash"]);
    const out = await done;
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(marker)).toBe(!HONOURS_ON_FAILURE);
    if (HONOURS_ON_FAILURE) {
      const said = JSON.stringify(fake().requests.at(-1)!.body.messages);
      expect(said).toContain('blocking because onFailure is \\"block\\"');
      expect(said).toMatch(/hookplane: (command )?not found/);
    }
  }, 120_000);

  test("fail closed: with Hookplane down the guarded call is blocked, though Claude Code itself allows Bash", async () => {
    const dir = project("down", settings);
    const marker = path.join(dir, "marker");
    const { done } = runClaude(dir, `bash: touch ${marker}`, { HOOKPLANE_URL: `http://127.0.0.1:${await closedPort()}` }, ["--allowedTools", "Bash"]);
    const out = await done;
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const said = fake().requests.map((r) => JSON.stringify(r.body.messages ?? [])).join("\n");
    expect(said).toMatch(/Hookplane unreachable at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  }, 120_000);

  test("the agent's fail mode overrules a developer's --fail-open: once Hookplane has answered, with it down the guarded call is still blocked, and the record says why", async () => {
    // The developer added --fail-open to their settings; the admin set the agent to fail closed.
    const failOpen = settings.replaceAll(`--agent ${AGENT}`, `--agent ${STRICT} --fail-open`);
    expect(failOpen).toContain("--fail-open");
    const dir = project("policy", failOpen);
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: Number(new URL(h.server.url).port) });
    // A config folder of its own: the policy kept and the spool are this test's.
    const env = { HOOKPLANE_URL: proxy.proxied(h.server.url), HOOKPLANE_CONFIG_DIR: path.join(dir, "config") };
    try {
      const answered = path.join(dir, "answered");
      const first = await runClaude(dir, `bash: touch ${answered}`, env, ["--allowedTools", "Bash"]).done;
      expect(first.code, first.stderr).toBe(0);
      expect(existsSync(answered)).toBe(true);
      // Hookplane goes away; the CLI applies the policy its last answer carried, not its flag.
      await proxy.close();
      const down = path.join(dir, "down");
      const second = await runClaude(dir, `bash: touch ${down}`, env, ["--allowedTools", "Bash"]).done;
      expect(second.code, second.stderr).toBe(0);
      expect(existsSync(down)).toBe(false);
      const said = fake().requests.map((r) => JSON.stringify(r.body.messages ?? [])).join("\n");
      expect(said).toContain(`${STRICT}'s fail mode in Hookplane is closed (it overrules --fail-open)`);
      // Back: the decision taken alone is reported, with the mode it applied and where it came from.
      await proxy.restore();
      // (Not spawnSync: the server answering it runs in this process.)
      const flushed = await runHookplaneCli(["spool", "flush"], "", { ...h.cliEnv(), ...env });
      expect(flushed.code, `${flushed.stdout}${flushed.stderr}`).toBe(0);
      // The Bash call blocked under the policy; the session's other events (its turn's end, ...) gate nothing.
      const offline = (await h.t.execute("select od.decision, od.fail_mode, od.against_policy from offline_decisions od join agents a on a.id = od.agent_id where a.name = $1 order by od.decided_at", [STRICT])).rows;
      expect(offline.filter((o) => o.decision === "blocked")).toEqual([{ decision: "blocked", fail_mode: "closed", against_policy: false }]);
      expect(offline.filter((o) => o.against_policy)).toEqual([]);
      const [marker] = (await h.t.execute("select e.data -> 'offline' as offline from run_events e join runs r on r.id = e.run_id join agents a on a.id = r.agent_id where a.name = $1 and e.type = 'tool.pre' and e.data ? 'offline'", [STRICT])).rows as { offline: Record<string, unknown> }[];
      expect(marker.offline).toMatchObject({ decision: "blocked", failMode: "closed", failModeFrom: "policy", policy: "closed" });
    } finally {
      await proxy.stop();
    }
  }, 180_000);

  /**
   * Claude Code asks its permission prompts, and fires PermissionRequest, only in its interactive
   * terminal UI (not with -p): run it under a terminal, with settings that send only that event to
   * Hookplane, as a team routing its prompts to the approval inbox would.
   */
  test.skipIf(!HAS_TMUX)("interactive: Claude Code's permission prompt goes to Hookplane (PermissionRequest); an approval decided through the API allows or denies the Write", async () => {
    const bridgeOnly = JSON.stringify({ hooks: { PermissionRequest: [{ matcher: "Write", hooks: [{ type: "command", command: `hookplane hook claude-code --agent ${AGENT}`, timeout: 600 }] }] } });
    for (const decision of ["approve", "deny"] as const) {
      const dir = project(`prompt-${decision}`, bridgeOnly);
      const home = path.join(dir, "home");
      // A HOME where Claude Code's first-run questions (theme, trust in the folder, the API key) are answered.
      writeFileSync(path.join(home, ".claude.json"), JSON.stringify({ hasCompletedOnboarding: true, theme: "dark", customApiKeyResponses: { approved: ["sk-ant-fake"], rejected: [] }, projects: { [dir]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } } }));
      const terminal = openTerminal(CLAUDE!, [], {
        cwd: dir,
        // The model pinned: Claude Code 2.1.332 puts its newer default model in auto mode, where its
        // classifier answers permission prompts and PermissionRequest hooks never see them.
        env: { ...h.cliEnv(), PATH: `${path.join(workspace.work, "bin")}:${process.env.PATH}`, HOME: home, ANTHROPIC_BASE_URL: fake().url, ANTHROPIC_API_KEY: "sk-ant-fake", ANTHROPIC_MODEL: "claude-sonnet-4-5", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1" },
      });
      try {
        await terminal.waitFor("? for shortcuts");
        terminal.type("write notes.txt");
        await terminal.waitFor("write notes.txt");
        terminal.type("Enter", { keys: true });
        const approval = await pendingWrite();
        expect((await h.decide(approval.id, { decision, reason: "checked" })).status).toBe(200);
        // What the person at the terminal sees: Claude Code's prompt answered by the hook.
        const screen = await terminal.waitFor("Done.");
        expect(screen).toContain(decision === "approve" ? "Allowed by PermissionRequest hook" : "Denied by PermissionRequest hook");
        expect(existsSync(path.join(dir, "notes.txt")), decision).toBe(decision === "approve");
        if (decision === "deny") expect(JSON.stringify(fake().requests.at(-1)!.body.messages)).toContain("denied by token:approver via api: checked");
        terminal.type("/exit");
        await terminal.waitFor("/exit");
        terminal.type("Enter", { keys: true });
        await terminal.waitForExit();

        const status = decision === "approve" ? "approved" : "denied";
        const toolInput = { file_path: path.join(dir, "notes.txt"), content: "written by the fake model\n" };
        const call = { toolName: "Write", toolInput, toolCallId: approval.toolCallId };
        const said = `${decision === "approve" ? "approved" : "denied"} by token:approver via api: checked`;
        expect(await getRun(h.t.db, { projectId: DEFAULT_PROJECT_ID, id: approval.runId })).toMatchObject({ agentId: h.agentIds[AGENT], source: "claude-code", status: "running" });
        expect((await listRunEventsAfter(h.t.db, { runId: approval.runId, after: 0, limit: 100 })).map((e) => [e.type, e.data])).toEqual([
          [
            "tool.permission_request",
            {
              cwd: dir,
              ...call,
              claudeCode: expect.objectContaining({
                hook_event_name: "PermissionRequest",
                // "manual" since Claude Code 2.1.3xx, "default" before.
                permission_mode: expect.stringMatching(/^(default|manual)$/),
                permission_suggestions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }],
                transcript_path: expect.stringMatching(new RegExp(`^${home}/\\.claude/projects/.+\\.jsonl$`)),
                prompt_id: expect.any(String),
              }),
            },
          ],
          ["approval.requested", { hookId: "ask-writes", approvalId: approval.id, ...call, expiresAt: expect.any(String) }],
          ["approval.settled", { hookId: "ask-writes", approvalId: approval.id, ...call, status, decision, reason: "checked", timedOut: false, decidedBy: "token:approver", decidedVia: "api" }],
          ...(decision === "deny" ? [["loop.tool_denied", { by: "hook", reason: said, toolName: "Write", toolCallId: approval.toolCallId }]] : []),
        ]);
        expect(await getApprovalInAnyProject(h.t.db, { id: approval.id })).toMatchObject({ hookKey: "ask-writes", agentName: AGENT, ...call, status, reason: "checked", decidedBy: "token:approver", decidedVia: "api" });
        const ledger = await listRunHookInvocations(h.t.db, { runId: approval.runId });
        expect(ledger).toHaveLength(1);
        expect(ledger[0]).toMatchObject({
          event: "tool.pre",
          hookKey: "ask-writes",
          action: "approve",
          matched: true,
          verdict: decision === "approve" ? "allow" : "block",
          reason: said,
          approval: { approvalId: approval.id, status, decision, decidedBy: "token:approver", decidedVia: "api" },
        });
      } finally {
        terminal.close();
      }
    }
  }, 180_000);

  test("Claude Code killed while a hook waits for a person: the hookplane CLI exits and the approval is abandoned", async () => {
    const dir = project("killed", settings);
    const run = runClaude(dir, "write gone.txt");
    const approval = await pendingWrite();
    const hookPids = () =>
      spawnSync("sh", ["-c", `ps -eo pid,args | grep "[h]ookplane.cjs hook claude-code --agent ${AGENT}" | awk '{print $1}'`], { encoding: "utf8" })
        .stdout.split("\n")
        .filter(Boolean);
    // This Claude Code's own hook processes (another test's leftovers are not this test's to judge).
    const parents = new Map(
      spawnSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" })
        .stdout.trim()
        .split("\n")
        .map((line) => line.trim().split(/\s+/) as [string, string]),
    );
    const descendsFromClaude = (pid: string) => {
      for (let p: string | undefined = pid; p && p !== "1" && p !== "0"; p = parents.get(p)) if (p === String(run.child.pid)) return true;
      return false;
    };
    const waiting = hookPids().filter(descendsFromClaude);
    expect(waiting.length).toBeGreaterThan(0);
    run.child.kill("SIGKILL");
    await run.done;
    await expect.poll(() => hookPids().filter((p) => waiting.includes(p)), { timeout: 15_000, interval: 100 }).toEqual([]);
    await expect.poll(async () => (await getApprovalInAnyProject(h.t.db, { id: approval.id }))?.status, { timeout: 15_000, interval: 100 }).toBe("abandoned");
    expect(existsSync(path.join(dir, "gone.txt"))).toBe(false);
  }, 120_000);
});
