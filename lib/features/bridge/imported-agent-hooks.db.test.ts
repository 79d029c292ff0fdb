/**
 * An imported coding agent's command hook runs where it ran (issue 28, 2): on the developer's
 * machine, from the settings `hookplane install` writes, never as a server-side hook that allows
 * every call while the list shows a guard. Imported, it says so (enforcement `on_agent`, not in the
 * preview's "not enforced" list); the bridge's dispatch on the server leaves it out (no "not run"
 * ledger row, no allow in its name); the install settings carry it natively beside the bridge; and
 * with the real Claude Code CLI (when installed) its block holds with no `hookplane` involved.
 * From the wrong side: only a command hook may run on the agent's machine (422 at the path).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRunByExternalSession, listRuns } from "@/db/queries/runs";
import { listHooks } from "@/db/queries/hooks";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { codingAgentSettings } from "@/lib/features/config-io/agent-installs";
import { callRoute } from "@/test/api-client";
import { findAgentCli, useAgentWorkspace, useBridgeHarness } from "@/test/bridge-harness";
import { startFakeAnthropic } from "@/test/bridges/fake-anthropic-api";
import { addToken } from "@/test/people";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import * as importRoute from "@/app/api/v1/config/import/route";
import * as hooksRoute from "@/app/api/v1/hooks/route";

const AGENT = "imported";
/** The developer's own guard, as it sat in their `.claude/settings.json`: exit 2 blocks in Claude Code. */
const LOCAL_GUARD = `grep -q 'rm -rf' && { echo 'local guard: no rm -rf in this repo' >&2; exit 2; }; exit 0`;
const SETTINGS = JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: LOCAL_GUARD, timeout: 10 }] }] } });
const CLAUDE = findAgentCli("HOOKPLANE_CLAUDE_BIN", "claude");

const h = useBridgeHarness({
  ingest: { method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST },
  agents: { [AGENT]: [] },
});
let admin: string;

beforeAll(async () => {
  admin = (await addToken(h.t.db, { role: "admin", name: "admin" })).token;
  const preview = await callRoute(importRoute.POST, { method: "POST", token: admin, body: { dialect: "claude-code", content: SETTINGS, agent: AGENT, dry: true } });
  expect(preview.status).toBe(200);
  expect(preview.body.hooks).toEqual([expect.objectContaining({ id: "pre-tool-use-1", action: "command", enforcement: { state: "on_agent", why: expect.stringContaining("developer's machine") } })]);
  expect(preview.body.notEnforced).toEqual([]);
  const imported = await callRoute(importRoute.POST, { method: "POST", token: admin, body: { dialect: "claude-code", content: SETTINGS, agent: AGENT } });
  expect(imported.status).toBe(201);
});

test("imported, the guard runs on the agent's machine: the server's dispatch leaves it out, the install settings carry it natively beside the bridge", async () => {
  const [stored] = (await listHooks(h.t.db, { projectId: DEFAULT_PROJECT_ID })).filter((hook) => hook.key === "pre-tool-use-1");
  expect(stored.spec).toMatchObject({ runsOn: "agent", dialect: "claude-code", action: { type: "command", command: LOCAL_GUARD }, scope: `agent:${h.agentIds[AGENT]}` });

  // The bridged call: the server has nothing of its own to decide, so it allows, and records no row
  // that would claim the imported guard ran here and let the call through.
  const res = await h.send(AGENT, { session_id: "imported-1", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf /srv/data" }, tool_use_id: "t1", cwd: "/repo" });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({});
  const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds[AGENT], externalSessionId: "imported-1" }))!;
  expect(await listRunHookInvocations(h.t.db, { runId: run.id })).toEqual([]);

  const settings = JSON.parse((await codingAgentSettings(h.t.db, { projectId: DEFAULT_PROJECT_ID, codingAgent: "claude-code", agent: AGENT })).content);
  const preToolUse = settings.hooks.PreToolUse.flatMap((group: { matcher?: string; hooks: { command: string }[] }) => group.hooks.map((hook) => [group.matcher, hook.command]));
  expect(preToolUse).toContainEqual(["Bash", LOCAL_GUARD]);
  expect(settings.hooks.SessionStart[0].hooks[0].command).toBe(`hookplane hook claude-code --agent ${AGENT}`);
});

test("what the guard blocked on the developer's machine comes back at the turn's end: a hook.local event and the hook's ledger row, once per tool call", async () => {
  const blocked = `PreToolUse:Bash hook error: [${LOCAL_GUARD}]: local guard: no rm -rf in this repo\n`;
  const unknown = "PreToolUse:Write hook error: [./my-own-check.sh]: not on Fridays";
  const stop = {
    session_id: "imported-2",
    hook_event_name: "Stop",
    stop_hook_active: false,
    hookplane_local_blocks: [
      { tool_use_id: "toolu_1", text: blocked },
      { tool_use_id: "toolu_2", text: unknown },
      { tool_use_id: "toolu_3", text: "Exit code 1: no such file" },
    ],
  };
  for (let i = 0; i < 2; i++) expect((await h.send(AGENT, stop)).status).toBe(200); // every turn's end sends the whole transcript again
  const run = (await getRunByExternalSession(h.t.db, { agentId: h.agentIds[AGENT], externalSessionId: "imported-2" }))!;
  const local = (await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 100 })).filter((e) => e.type === "hook.local");
  expect(local.map((e) => e.data)).toEqual([
    { event: "tool.pre", toolName: "Bash", toolCallId: "toolu_1", verdict: "block", reason: "local guard: no rm -rf in this repo", ranOn: "agent", hookId: "pre-tool-use-1" },
    { event: "tool.pre", toolName: "Write", toolCallId: "toolu_2", verdict: "block", reason: "./my-own-check.sh]: not on Fridays", ranOn: "agent" },
  ]);
  const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
  expect(ledger).toHaveLength(1);
  expect(ledger[0]).toMatchObject({ hookKey: "pre-tool-use-1", event: "tool.pre", action: "command", matched: true, verdict: "block", reason: "local guard: no rm -rf in this repo", exitCode: 2, eventSeq: local[0].seq });

  // A report that is not one: refused at its path, nothing recorded.
  const bad = await h.send(AGENT, { ...stop, session_id: "imported-3", hookplane_local_blocks: [{ tool_use_id: "", text: blocked }] });
  expect(bad.status).toBe(422);
  expect(JSON.stringify(bad.body)).toContain("hookplane_local_blocks");
  expect(await getRunByExternalSession(h.t.db, { agentId: h.agentIds[AGENT], externalSessionId: "imported-3" })).toBeUndefined();
});

test("from the wrong side: only a command hook can run on the agent's machine (422 at runsOn, nothing stored)", async () => {
  const before = (await listHooks(h.t.db, { projectId: DEFAULT_PROJECT_ID })).length;
  const res = await callRoute(hooksRoute.POST, { method: "POST", token: admin, body: { id: "remote-block", event: "tool.pre", action: { type: "block", reason: "no" }, runsOn: "agent" } });
  expect(res.status).toBe(422);
  expect(res.body.error.issues).toEqual([expect.objectContaining({ path: "runsOn", message: expect.stringContaining("only a command hook runs on the agent's machine") })]);
  expect((await listHooks(h.t.db, { projectId: DEFAULT_PROJECT_ID })).length).toBe(before);
});

describe.skipIf(!CLAUDE)(CLAUDE ? "the real Claude Code CLI" : "Claude Code CLI not installed: set HOOKPLANE_CLAUDE_BIN to run this", () => {
  const workspace = useAgentWorkspace(h, "hp-imported-", startFakeAnthropic);

  test("with the installed settings, the imported guard blocks rm -rf in Claude Code, as it did before the import", async () => {
    const dir = path.join(workspace.work, "project");
    mkdirSync(path.join(dir, ".claude"), { recursive: true });
    mkdirSync(path.join(dir, "home"), { recursive: true });
    const target = path.join(dir, "keep-me");
    mkdirSync(target);
    writeFileSync(path.join(dir, ".claude", "settings.json"), (await codingAgentSettings(h.t.db, { projectId: DEFAULT_PROJECT_ID, codingAgent: "claude-code", agent: AGENT })).content);
    const out = await workspace.run(CLAUDE!, ["-p", `bash: rm -rf ${target}`, "--output-format", "json", "--allowedTools", "Bash"], dir, {
      HOME: path.join(dir, "home"),
      ANTHROPIC_BASE_URL: workspace.fake.url,
      ANTHROPIC_API_KEY: "sk-ant-fake",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
    }).done;
    expect(out.code, out.stderr).toBe(0);
    expect(existsSync(target)).toBe(true);
    // The model was told why, in the local guard's words.
    expect(JSON.stringify(workspace.fake.requests.map((r) => r.body.messages))).toContain("local guard: no rm -rf in this repo");
    // And the run says which hook decided, on which machine: the turn's end brought it back.
    const run = (await listRuns(h.t.db, { projectId: DEFAULT_PROJECT_ID, limit: 50 })).find((r) => r.source === "claude-code" && r.externalSessionId !== "imported-1" && r.externalSessionId !== "imported-2")!;
    const local = (await listRunEventsAfter(h.t.db, { runId: run.id, after: 0, limit: 200 })).filter((e) => e.type === "hook.local");
    expect(local.map((e) => e.data)).toEqual([expect.objectContaining({ hookId: "pre-tool-use-1", toolName: "Bash", verdict: "block", reason: "local guard: no rm -rf in this repo", ranOn: "agent" })]);
    // Recorded as the person whose token the CLI sent (the harness's operator).
    expect(await listRunHookInvocations(h.t.db, { runId: run.id })).toEqual([
      expect.objectContaining({ hookKey: "pre-tool-use-1", verdict: "block", actorKey: `user:${run.actorUserId}`, actor: expect.objectContaining({ label: "operator@people.test" }) }),
    ]);
    expect(run.actorUserId).toEqual(expect.any(String));
  }, 120_000);
});
