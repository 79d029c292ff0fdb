/**
 * `hookplane install` and `hookplane doctor` (issue 28, 1), the real CLI against the real routes:
 * install writes Claude Code's settings in a temporary HOME and project with node's and the CLI's
 * absolute paths (so a machine without `hookplane` on PATH still blocks), keeps everything else in
 * the file, replaces only its own entries when run again, writes nothing with --dry-run, and the
 * server records the machine; doctor fails a bare `hookplane` not on PATH (the fail-open risk), a
 * revoked credential and drift, and passes after install. The real coding agents run through
 * what install wrote in installed-real-clis.db.test.ts.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { listAgentInstalls } from "@/db/queries/agent-installs";
import { revokeApiToken } from "@/db/queries/api-tokens";
import { createHook } from "@/db/queries/hooks";
import { listRuns } from "@/db/queries/runs";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { stopProcessApprovalWaiter } from "@/lib/features/approvals/approval-waiter-registry";
import { startRouteServer, type RouteServer } from "@/lib/platform/api/route-server";
import { INGEST_ROUTES } from "@/lib/features/bridge/ingest-routes";
import { listAgentInstallsWithDrift } from "./agent-installs";
import * as settingsRoute from "@/app/api/v1/ingest/claude-code/settings/route";
import * as copilotSettingsRoute from "@/app/api/v1/ingest/copilot/settings/route";
import * as cursorSettingsRoute from "@/app/api/v1/ingest/cursor/settings/route";
import * as installsRoute from "@/app/api/v1/ingest/installs/route";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPerson, addProject, addToken } from "@/test/people";
import { HOOKPLANE_CLI } from "@/test/bridge-harness";

let t: TestDatabase;
let server: RouteServer;
let agentId: string;
let credential: { id: string; token: string };
let work: string;

/** A machine of its own per test: HOME, the config folder, a project, and a PATH with no `hookplane` on it. */
function machine(name: string) {
  const root = path.join(work, name);
  const home = path.join(root, "home");
  const project = path.join(root, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  const env = (token = credential.token) => ({ HOME: home, HOOKPLANE_CONFIG_DIR: path.join(home, ".config", "hookplane"), HOOKPLANE_URL: server.url, HOOKPLANE_TOKEN: token, PATH: "/usr/bin:/bin", CLAUDE_CONFIG_DIR: undefined });
  const cli = (args: string[], token?: string) => runHookplaneCli(args, "", env(token));
  return { home, project, env, cli, settingsFile: path.join(project, ".claude", "settings.json") };
}

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  const dev = await addPerson(t.db, { email: "dev@example.com", role: "operator" });
  credential = await addToken(t.db, { role: "operator", kind: "bridge", userId: dev.id, name: "dev-laptop" });
  agentId = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "guarded" }) }))!.id;
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "no-rm", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "No rm -rf here", denyIf: "rm -rf" }, scope: `agent:${agentId}` }),
    actor: "test",
  });
  server = await startRouteServer([
    { method: "POST", path: "/api/v1/ingest/claude-code", handler: INGEST_ROUTES["claude-code"] },
    { method: "GET", path: "/api/v1/ingest/claude-code/settings", handler: settingsRoute.GET },
    { method: "POST", path: "/api/v1/ingest/copilot", handler: INGEST_ROUTES.copilot },
    { method: "GET", path: "/api/v1/ingest/copilot/settings", handler: copilotSettingsRoute.GET },
    { method: "POST", path: "/api/v1/ingest/cursor", handler: INGEST_ROUTES.cursor },
    { method: "GET", path: "/api/v1/ingest/cursor/settings", handler: cursorSettingsRoute.GET },
    { method: "POST", path: "/api/v1/ingest/installs", handler: installsRoute.POST },
  ]);
  work = mkdtempSync(path.join(tmpdir(), "hookplane-install-"));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await stopProcessApprovalWaiter();
  await t?.drop();
});

/** Runs a hook command as the coding agent would (`/bin/sh -c`), asynchronously: the routes answer from this process. */
function shell(command: string, stdin: unknown, env: Record<string, string | undefined>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], { env: env as NodeJS.ProcessEnv });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(JSON.stringify(stdin));
  });
}

const commandsOf = (settings: { hooks: Record<string, { hooks: { command: string }[] }[]> }, event: string) => settings.hooks[event]!.flatMap((g) => g.hooks.map((h) => h.command));

test("install writes Claude Code's project settings with absolute paths, keeps the rest, and the server records the machine", async () => {
  const m = machine("first");
  mkdirSync(path.dirname(m.settingsFile), { recursive: true });
  const before = {
    permissions: { allow: ["Bash(npm test)"] },
    model: "opus",
    hooks: {
      PreToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "prettier --check" }] }],
      Notification: [{ hooks: [{ type: "command", command: "notify-send done" }] }],
    },
  };
  writeFileSync(m.settingsFile, JSON.stringify(before, null, 2));

  const dry = await m.cli(["install", "claude-code", "--agent", "guarded", "--dir", m.project, "--dry-run"]);
  expect(dry.code, dry.stderr).toBe(0);
  expect(dry.stdout).toContain("Nothing written (--dry-run)");
  expect(JSON.parse(readFileSync(m.settingsFile, "utf8"))).toEqual(before);
  expect(await listAgentInstalls(t.db, { projectId: DEFAULT_PROJECT_ID, agentId })).toEqual([]);

  const run = await m.cli(["install", "claude-code", "--agent", "guarded", "--dir", m.project]);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain(`Wrote ${m.settingsFile}`);
  const after = JSON.parse(readFileSync(m.settingsFile, "utf8"));
  expect(after.permissions).toEqual(before.permissions);
  expect(after.model).toBe("opus");
  expect(after.hooks.Notification).toEqual(before.hooks.Notification);
  expect(commandsOf(after, "PreToolUse")).toContain("prettier --check");
  const pre = commandsOf(after, "PreToolUse").find((c) => c.includes("hook claude-code"))!;
  expect(pre).toBe(`'${process.execPath}' '${HOOKPLANE_CLI}' hook claude-code --agent guarded || exit 2`);
  // Not a gate: no `|| exit 2` (exit 2 on Stop would keep Claude working).
  expect(commandsOf(after, "Stop")).toEqual([`'${process.execPath}' '${HOOKPLANE_CLI}' hook claude-code --agent guarded`]);
  expect(readdirSync(path.dirname(m.settingsFile)).filter((f) => f.endsWith(".bak"))).toHaveLength(1);

  const [install] = await listAgentInstalls(t.db, { projectId: DEFAULT_PROJECT_ID, agentId });
  expect(install).toMatchObject({ codingAgent: "claude-code", level: "project", settingsPath: m.settingsFile, actorLabel: "dev@example.com", cliVersion: "0.1.0" });
  expect(install!.actorKey).toMatch(/^user:/);
  expect(install!.host).not.toBe("");
  expect(install!.settingsSha256).toMatch(/^[0-9a-f]{64}$/);

  // The installed hook blocks rm -rf with no `hookplane` on PATH (the shell Claude Code would use).
  const blocked = await shell(pre, { session_id: "s-install", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "rm -rf /tmp/x" } }, m.env());
  expect(blocked.status, blocked.stderr).toBe(0);
  expect(JSON.parse(blocked.stdout).hookSpecificOutput.permissionDecision).toBe("deny");

  // Again: only Hookplane's entries are replaced, nothing doubled.
  const again = await m.cli(["install", "claude-code", "--agent", "guarded", "--dir", m.project]);
  expect(again.code, again.stderr).toBe(0);
  expect(JSON.parse(readFileSync(m.settingsFile, "utf8"))).toEqual(after);
  expect(await listAgentInstalls(t.db, { projectId: DEFAULT_PROJECT_ID, agentId })).toHaveLength(1);
});

test("doctor fails a bare `hookplane` that is not on PATH, naming the fail-open risk, and passes after install", async () => {
  const m = machine("bare");
  mkdirSync(path.dirname(m.settingsFile), { recursive: true });
  const exported = await (await fetch(`${server.url}/api/v1/ingest/claude-code/settings?agent=guarded`, { headers: { authorization: `Bearer ${credential.token}` } })).text();
  writeFileSync(m.settingsFile, exported);
  expect(exported).toContain('"hookplane hook claude-code --agent guarded"');

  const bare = await m.cli(["doctor", "--coding-agent", "claude-code", "--dir", m.project]);
  expect(bare.code, bare.stdout + bare.stderr).toBe(1);
  expect(bare.stdout).toMatch(/FAIL Claude Code project .*commands run: PreToolUse: `hookplane` is not on PATH.*fails OPEN/);
  expect(bare.stdout).toContain(`fix: hookplane install claude-code --agent guarded --level project --dir ${m.project}`);

  const installed = await m.cli(["install", "claude-code", "--agent", "guarded", "--dir", m.project]);
  expect(installed.code, installed.stderr).toBe(0);
  const ok = await m.cli(["doctor", "--coding-agent", "claude-code", "--dir", m.project]);
  expect(ok.stdout).toMatch(/ok {3}Claude Code project .*test event: PreToolUse `true` answered \(allow\) in session hookplane-doctor-/);
  expect(ok.code, ok.stdout + ok.stderr).toBe(0);
  // The test event's session is recognisable and ended.
  const runs = (await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 100 })).filter((r) => r.externalSessionId?.startsWith("hookplane-doctor-"));
  expect(runs.length).toBeGreaterThan(0);
  expect(runs.every((r) => r.status !== "running")).toBe(true);
});

test("doctor sends Copilot CLI and Cursor a test event through the installed gate, in their own shapes, and ends its session", async () => {
  for (const [kind, name, gate, source] of [
    ["copilot", "Copilot CLI", "preToolUse", "copilot"],
    ["cursor", "Cursor", "beforeShellExecution", "cursor"],
  ] as const) {
    const m = machine(`doctor-${kind}`);
    const installed = await m.cli(["install", kind, "--agent", "guarded", "--level", "project", "--dir", m.project]);
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    const ok = await m.cli(["doctor", "--coding-agent", kind, "--dir", m.project]);
    expect(ok.stdout).toMatch(new RegExp(`ok {3}${name} project .*test event: ${gate} \`true\` answered \\(allow\\) in session hookplane-doctor-`));
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    const session = /in session (hookplane-doctor-[0-9a-f]+)/.exec(ok.stdout)![1];
    const run = (await listRuns(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 200 })).find((r) => r.externalSessionId === session)!;
    // Copilot's end needs its --event: without it the run would stay running.
    expect(run).toMatchObject({ source, status: "finished", toolsUsed: [kind === "copilot" ? "bash" : "Shell"] });

    // Wrong side: a revoked credential sends no test event and says why.
    const leaver = await addToken(t.db, { role: "operator", kind: "bridge", userId: (await addPerson(t.db, { email: `leaver-${kind}@example.com`, role: "operator" })).id, name: "gone" });
    await revokeApiToken(t.db, { projectId: DEFAULT_PROJECT_ID, id: leaver.id });
    const revoked = await m.cli(["doctor", "--coding-agent", kind, "--dir", m.project], leaver.token);
    expect(revoked.code).toBe(1);
    expect(revoked.stdout).toMatch(new RegExp(`FAIL ${name} project .*test event: not sent: the credential does not work`));
  }
});

test("doctor fails a revoked credential with the fix: hookplane login", async () => {
  const dev = await addPerson(t.db, { email: "leaver@example.com", role: "operator" });
  const revoked = await addToken(t.db, { role: "operator", kind: "bridge", userId: dev.id, name: "leaver-laptop" });
  await revokeApiToken(t.db, { projectId: DEFAULT_PROJECT_ID, id: revoked.id });
  const m = machine("revoked");
  const res = await m.cli(["doctor", "--coding-agent", "claude-code", "--dir", m.project], revoked.token);
  expect(res.code).toBe(1);
  expect(res.stdout).toMatch(/FAIL credential: .*answered 401/);
  expect(res.stdout).toContain("fix: run hookplane login");
});

test("a hook added on the server is drift: doctor says so and the agent's page flags the machine", async () => {
  const m = machine("drift");
  const installed = await m.cli(["install", "claude-code", "--agent", "guarded", "--dir", m.project]);
  expect(installed.code, installed.stderr).toBe(0);
  expect((await listAgentInstallsWithDrift(t.db, { projectId: DEFAULT_PROJECT_ID, agentId, agentName: "guarded" })).every((i) => !i.drifted)).toBe(true);

  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "no-secrets-prompt", event: "user.prompt.submit", action: { type: "block", reason: "no secrets", denyIf: "password" }, scope: `agent:${agentId}` }),
    actor: "test",
  });
  const res = await m.cli(["doctor", "--coding-agent", "claude-code", "--dir", m.project]);
  expect(res.code).toBe(1);
  expect(res.stdout).toMatch(/FAIL Claude Code project .*matches the current export: drifted/);
  expect(res.stdout).toMatch(/FAIL Claude Code project .*gating events bound: not bound: UserPromptSubmit/);
  const installs = await listAgentInstallsWithDrift(t.db, { projectId: DEFAULT_PROJECT_ID, agentId, agentName: "guarded" });
  expect(installs.find((i) => i.settingsPath === m.settingsFile)?.drifted).toBe(true);

  const again = await m.cli(["install", "claude-code", "--agent", "guarded", "--dir", m.project]);
  expect(again.code, again.stderr).toBe(0);
  expect(commandsOf(JSON.parse(readFileSync(m.settingsFile, "utf8")), "UserPromptSubmit")[0]).toContain("|| exit 2");
  expect((await listAgentInstallsWithDrift(t.db, { projectId: DEFAULT_PROJECT_ID, agentId, agentName: "guarded" })).find((i) => i.settingsPath === m.settingsFile)?.drifted).toBe(false);
  const ok = await m.cli(["doctor", "--coding-agent", "claude-code", "--dir", m.project]);
  expect(ok.code, ok.stdout).toBe(0);
});

test("a bare hookplane entry installed with a missing CLI blocks instead of failing open", async () => {
  const m = machine("moved");
  const run = await m.cli(["install", "claude-code", "--agent", "guarded", "--dir", m.project]);
  expect(run.code, run.stderr).toBe(0);
  const pre = commandsOf(JSON.parse(readFileSync(m.settingsFile, "utf8")), "PreToolUse").find((c) => c.includes("hook claude-code"))!;
  const moved = pre.replace(HOOKPLANE_CLI, path.join(work, "gone", "hookplane.cjs"));
  const res = await shell(moved, {}, m.env());
  expect(res.status).toBe(2);
  expect(existsSync(path.join(work, "gone"))).toBe(false);
});


test("from the wrong side: another project's bridge credential neither reads this agent's settings nor records an install of it; no credential is a 401", async () => {
  const other = await addProject(t.db, { slug: "elsewhere" });
  const outsider = await addPerson(t.db, { email: "outsider@example.com", role: "operator", projectId: other.id });
  const theirs = await addToken(t.db, { role: "viewer", kind: "bridge", userId: outsider.id, projectId: other.id, name: "outsider-laptop" });
  const settings = await fetch(`${server.url}/api/v1/ingest/claude-code/settings?agent=guarded`, { headers: { authorization: `Bearer ${theirs.token}` } });
  expect(settings.status).toBe(404);
  const before = (await t.execute("select count(*)::int as n from agent_installs")).rows[0] as { n: number };
  const install = await fetch(`${server.url}/api/v1/ingest/installs`, {
    method: "POST",
    headers: { authorization: `Bearer ${theirs.token}`, "content-type": "application/json" },
    body: JSON.stringify({ agent: "guarded", codingAgent: "claude-code", level: "project", settingsPath: "/tmp/x", settingsSha256: "0".repeat(64), cliVersion: "0.1.0" }),
  });
  expect(install.status).toBe(404);
  expect((await t.execute("select count(*)::int as n from agent_installs")).rows[0]).toEqual(before);
  expect((await fetch(`${server.url}/api/v1/ingest/claude-code/settings?agent=guarded`)).status).toBe(401);
});
