/**
 * Config import and export through the route handlers: each imported hook stored as the dialect
 * layer read it, warnings returned with their paths, 422 at the dialect's path for malformed
 * content, conflicts, trust, audit rows, and the round trip through the export endpoint.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { getAgent } from "@/db/queries/agents";
import { listAudit } from "@/db/queries/audit";
import { hookToResource, listHooks } from "@/db/queries/hooks";
import { listSchedules } from "@/db/queries/schedules";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { callRoute } from "@/test/api-client";
import { DialectParseError, importConfig, type DialectName } from "@/lib/core/dialects";
import { readFixture } from "@/lib/core/dialects/fixtures/fixture-files";
import { parseHookSpec, type HookSpec } from "@/lib/core/hooks/spec";
import * as exportRoute from "@/app/api/v1/config/export/route";
import * as importRoute from "@/app/api/v1/config/import/route";
import * as hooksRoute from "@/app/api/v1/hooks/route";
import * as hookRoute from "@/app/api/v1/hooks/[id]/route";
import { setEnv } from "@/test/config-env";
import { addPerson, addToken, DEFAULT_PROJECT_ID } from "@/test/people";

let t: TestDatabase;
let admin: string;
let operator: string;
let viewer: string;

const importFile = (body: Record<string, unknown>, token = operator) => callRoute(importRoute.POST, { method: "POST", token, body });

async function exportFile(query: string, token = viewer) {
  const response = await exportRoute.GET(new Request(`http://localhost/api/v1/config/export${query}`, { headers: { authorization: `Bearer ${token}` } }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Stored hooks with their scopes written by name again, as an importer writes them. */
async function storedHooks(): Promise<HookSpec[]> {
  const names = new Map<string, string>();
  for (const s of await listSchedules(t.db, { projectId: DEFAULT_PROJECT_ID })) names.set(`schedule:${s.id}`, `schedule:${s.name}`);
  const specs: HookSpec[] = [];
  for (const row of await listHooks(t.db, { projectId: DEFAULT_PROJECT_ID })) {
    const { spec } = hookToResource(row);
    let scope = names.get(spec.scope) ?? spec.scope;
    if (scope.startsWith("agent:")) scope = `agent:${(await getAgent(t.db, { projectId: DEFAULT_PROJECT_ID, ref: scope.slice(6) }))!.name}`;
    specs.push({ ...spec, scope });
  }
  return specs;
}

/** What the dialect layer reads from the content: every hook, schedule hooks included, with defaults. */
function expectedHooks(dialect: DialectName, content: string, agent?: string): HookSpec[] {
  const result = importConfig(dialect, content, { agent });
  return [...result.hooks, ...result.schedules.flatMap((s) => s.hooks ?? [])].map((h) => parseHookSpec(h).data!);
}

const byKey = (hooks: HookSpec[]) => [...hooks].sort((a, b) => `${a.scope}/${a.id}`.localeCompare(`${b.scope}/${b.id}`));

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  admin = (await addToken(t.db, { role: "admin", name: "setup", userId: (await addPerson(t.db, { email: "admin@example.com", instanceAdmin: true })).id })).token;
  const token = async (role: "operator" | "viewer") => (await addToken(t.db, { role, name: role })).token;
  operator = await token("operator");
  viewer = await token("viewer");
});
afterAll(async () => {
  await t.drop();
});

describe("POST /api/v1/config/import", () => {
  const tailored = readFixture("tailored-ai/profiles-and-cron.yaml");

  test("a dry run previews agents, hooks by event and schedules, and writes nothing", async () => {
    const preview = await importFile({ content: tailored, dry: true });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      dialect: "tailored-ai",
      detected: { dialect: "tailored-ai" },
      dry: true,
      created: { agents: ["researcher"], hooks: 3, schedules: 1 },
      schedules: [{ name: "daily-research", agent: "researcher", cron: "0 9 * * *", outcome: "create", hooks: 1 }],
      requiresAdmin: [],
    });
    expect(preview.body.hooks.map((h: { event: string; action: string }) => `${h.event}:${h.action}`)).toEqual(["session.start:tool", "session.end:tool", "session.start:tool"]);
    expect(await getAgent(t.db, { projectId: DEFAULT_PROJECT_ID, ref: "researcher" })).toBeUndefined();
    expect(await listHooks(t.db, { projectId: DEFAULT_PROJECT_ID })).toHaveLength(0);
  });

  test("dryRun is the same switch as dry; the two saying different things is a 422 at dryRun", async () => {
    const preview = await importFile({ content: tailored, dryRun: true });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ dry: true, created: { agents: ["researcher"], hooks: 3, schedules: 1 } });
    expect(await getAgent(t.db, { projectId: DEFAULT_PROJECT_ID, ref: "researcher" })).toBeUndefined();
    const both = await importFile({ content: tailored, dry: true, dryRun: true });
    expect(both.status).toBe(200);
    const conflicting = await importFile({ content: tailored, dry: true, dryRun: false });
    expect(conflicting.status).toBe(422);
    expect(conflicting.body.error.issues.map((i: { path: string }) => i.path)).toEqual(["dryRun"]);
    expect(await listHooks(t.db, { projectId: DEFAULT_PROJECT_ID })).toHaveLength(0);
  });

  test("Tailored AI profiles and cron: every hook stored as read, the schedule with its own hooks, audit rows", async () => {
    const created = await importFile({ dialect: "tailored-ai", content: tailored });
    expect(created.status).toBe(201);
    expect(created.body.created).toEqual({ agents: ["researcher"], hooks: 3, schedules: 1 });
    expect(created.body.agents[0]).toMatchObject({ name: "researcher", outcome: "create", id: expect.any(String) });
    expect(created.body.warnings).toEqual(importConfig("tailored-ai", tailored).warnings);
    expect(byKey(await storedHooks())).toEqual(byKey(expectedHooks("tailored-ai", tailored)));

    const [schedule] = await listSchedules(t.db, { projectId: DEFAULT_PROJECT_ID });
    expect(schedule).toMatchObject({ name: "daily-research", cron: "0 9 * * *", prompt: "Research today's AI news", enabled: true });
    expect(schedule.nextRunAt).toBeInstanceOf(Date);
    const scheduleHooks = (await listHooks(t.db, { projectId: DEFAULT_PROJECT_ID })).filter((h) => h.scope === `schedule:${schedule.id}`);
    expect(scheduleHooks.map((h) => h.key)).toEqual(["before-run-1"]);

    const audit = (await listAudit(t.db, { projectId: DEFAULT_PROJECT_ID, limit: 50 })).filter((a) => a.actor === "token:operator");
    expect(audit.map((a) => a.action).sort()).toEqual(["agent.create", "hook.create", "hook.create", "hook.create", "schedule.create"]);
  });

  test("importing again: 409 naming each existing item, unless onConflict skips or updates", async () => {
    const again = await importFile({ dialect: "tailored-ai", content: tailored });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/onConflict "skip".*"update"/);
    expect(again.body.error.issues.map((i: { path: string }) => i.path)).toEqual(["agents[0].name", "hooks[0].id", "hooks[1].id", "schedules[0].name", "schedules[0].hooks[0].id"]);

    const preview = await importFile({ dialect: "tailored-ai", content: tailored, dry: true });
    expect(preview.status).toBe(200);
    expect(preview.body.conflicts).toEqual(again.body.error.issues);
    expect(preview.body.agents[0].outcome).toBe("conflict");

    const skipped = await importFile({ dialect: "tailored-ai", content: tailored, onConflict: "skip" });
    expect(skipped.status).toBe(201);
    expect(skipped.body).toMatchObject({ created: { agents: [], hooks: 0, schedules: 0 }, skipped: { agents: ["researcher"], hooks: 3, schedules: 1 } });

    const changed = tailored.replace("Research today's AI news", "Research this week's AI news");
    const updated = await importFile({ dialect: "tailored-ai", content: changed, onConflict: "update" });
    expect(updated.body).toMatchObject({ created: { agents: [], hooks: 0, schedules: 0 }, updated: { agents: ["researcher"], hooks: 3, schedules: 1 } });
    expect((await listSchedules(t.db, { projectId: DEFAULT_PROJECT_ID }))[0].prompt).toBe("Research this week's AI news");
    // Identical hooks make no new version.
    expect((await listHooks(t.db, { projectId: DEFAULT_PROJECT_ID })).map((h) => h.version)).toEqual([1, 1, 1]);
  });

  test("Loom: warnings come back with their paths; a profile with all tools (Loom's preset full) takes an admin", async () => {
    const shop = readFixture("loom/shop.agent.json");
    // No `tools`: Loom's preset full, every tool, the shell among them; that is an admin's to give.
    const refused = await importFile({ dialect: "loom", content: shop });
    expect(refused.status).toBe(403);
    expect(await getAgent(t.db, { projectId: DEFAULT_PROJECT_ID, ref: "shop" })).toBeUndefined();
    const created = await importFile({ dialect: "loom", content: shop }, admin);
    expect(created.status).toBe(201);
    expect(await getAgent(t.db, { projectId: DEFAULT_PROJECT_ID, ref: "shop" })).toMatchObject({ tools: ["*"], maxTurns: 100, timeoutMs: 1_800_000 });
    expect(created.body.warnings).toEqual([{ path: "hooks.onError[0].level", message: expect.stringContaining('"error" ignored') }]);
    expect(created.body.created).toEqual({ agents: ["shop"], hooks: 4, schedules: 0 });
    const shopHooks = (await storedHooks()).filter((h) => h.scope === "agent:shop");
    expect(byKey(shopHooks)).toEqual(byKey(expectedHooks("loom", shop)));
  });

  test("malformed content is a 422 whose issues carry the dialect's paths", async () => {
    const broken = JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", timeout: "soon" }] }] } });
    let expected: string[] = [];
    try {
      importConfig("claude-code", broken);
    } catch (error) {
      expected = (error as DialectParseError).issues.map((i) => i.path);
    }
    expect(expected.length).toBeGreaterThan(0);
    const bad = await importFile({ dialect: "claude-code", content: broken, agent: "coder" });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("invalid_config");
    expect(bad.body.error.issues.map((i: { path: string }) => i.path)).toEqual(expected);
    expect(bad.body.error.issues[0].path).toMatch(/^hooks\.PreToolUse\[0\]\.hooks\[0\]\./);

    const syntax = await importFile({ dialect: "herdctl", content: "name: x\nhooks:\n  after_run: [\n" });
    expect(syntax.status).toBe(422);
    expect(syntax.body.error.issues[0].message).toMatch(/line \d+/);

    const unknown = await importFile({ content: "just some words" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.issues[0].path).toBe("dialect");
    expect((await importFile({ dialect: "yaml", content: "x" })).body.error.issues[0].path).toBe("dialect");
  });

  test("command hooks take an admin: 403 with the hooks named, a preview says so, an admin imports them", async () => {
    const settings = readFixture("claude-code/settings.json");
    const refused = await importFile({ dialect: "claude-code", content: settings, agent: "coder" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/Only admins may import what runs code on the server .*hooks\[0\] \(pre-tool-use-1, command\)/);
    expect(await getAgent(t.db, { projectId: DEFAULT_PROJECT_ID, ref: "coder" })).toBeUndefined();

    const preview = await importFile({ dialect: "claude-code", content: settings, agent: "coder", dry: true });
    // Eight command hooks: the ninth is the Hookplane bridge itself, which is not imported.
    expect(preview.body.requiresAdmin).toHaveLength(8);

    const created = await importFile({ dialect: "claude-code", content: settings, agent: "coder" }, admin);
    expect(created.status).toBe(201);
    // The agent the hooks belong to did not exist: created with defaults, and said so.
    expect(created.body.agents).toEqual([expect.objectContaining({ name: "coder", implicit: true, outcome: "create" })]);
    expect(created.body.warnings).toContainEqual({ path: "hooks[0].scope", message: expect.stringMatching(/agent "coder" .* created with default settings/) });
    const coderHooks = (await storedHooks()).filter((h) => h.scope === "agent:coder");
    expect(coderHooks).toEqual(expectedHooks("claude-code", settings, "coder"));
  });

  test("imported guards that cannot run on this server are named as not enforced, in the preview and on each stored hook; with running code on, they are enforced", async () => {
    const content = [
      "hooks:",
      "  - id: server-check",
      "    event: tool.pre",
      "    scope: agent:coder",
      "    action: {type: command, command: ./check.sh}",
      "    onFailure: continue",
      "  - id: server-guard",
      "    event: tool.pre",
      "    scope: agent:coder",
      "    action: {type: block, reason: no, denyIf: rm}",
      "",
    ].join("\n");
    const preview = await importFile({ dialect: "hookplane", content, dry: true, onConflict: "update" }, admin);
    expect(preview.status).toBe(200);
    expect(preview.body.notEnforced).toEqual([{ path: expect.any(String), id: "server-check", state: "not_enforced", why: expect.stringContaining("running code on this server is off") }]);
    expect((await importFile({ dialect: "hookplane", content, onConflict: "update" }, admin)).status).toBe(201);
    // The stored hook says so too, with why; the block hook runs in process and is enforced.
    const listed = await callRoute(hooksRoute.GET, { token: admin, path: "/api/v1/hooks?scope=agent:coder&limit=100" });
    const byKey = new Map(listed.body.items.map((h: { key: string }) => [h.key, h]));
    const stored = byKey.get("server-check") as { id: string; enforcement: unknown };
    expect(stored.enforcement).toEqual({ state: "not_enforced", why: expect.stringContaining("running code on this server is off") });
    expect((byKey.get("server-guard") as { enforcement: unknown }).enforcement).toEqual({ state: "enforced" });
    const one = await callRoute(hookRoute.GET, { token: admin, params: { id: stored.id } });
    expect(one.body.enforcement).toEqual(stored.enforcement);
    const restore = setEnv({ HOOKPLANE_ALLOW_CODE_EXECUTION: "1" });
    try {
      const on = await callRoute(hooksRoute.GET, { token: admin, path: "/api/v1/hooks?scope=agent:coder&limit=100" });
      expect((on.body.items.find((h: { key: string }) => h.key === "server-check") as { enforcement: unknown }).enforcement).toEqual({ state: "enforced" });
    } finally {
      restore();
    }
  });

  test("a coding agent's imported command hooks run on the developer's machine: named so in the preview and on each stored hook, never as not enforced", async () => {
    const settings = readFixture("claude-code/settings.json");
    const preview = await importFile({ dialect: "claude-code", content: settings, agent: "coder", dry: true, onConflict: "update" }, admin);
    // No imported hook is listed as not enforced; what the file has on events Hookplane has no
    // counterpart for is: not imported, with why (no id: it was never created).
    expect(preview.body.notEnforced).toEqual([
      { path: "hooks.Notification", state: "not_imported", why: expect.stringMatching(/^Claude Code's Notification: .*its hooks were not imported$/) },
      { path: "hooks.PreCompact", state: "not_imported", why: expect.stringMatching(/^Claude Code's PreCompact: .*its hooks were not imported$/) },
    ]);
    const commands = preview.body.hooks.filter((h: { action: string; outcome: string }) => h.action === "command" && h.outcome !== "skip");
    expect(commands.length).toBeGreaterThan(0);
    for (const h of commands) expect(h.enforcement).toEqual({ state: "on_agent", why: expect.stringContaining("developer's machine") });
    expect((await importFile({ dialect: "claude-code", content: settings, agent: "coder", onConflict: "update" }, admin)).status).toBe(201);
    const listed = await callRoute(hooksRoute.GET, { token: admin, path: "/api/v1/hooks?scope=agent:coder&limit=100" });
    const stored = listed.body.items.filter((h: { spec: { dialect?: string } }) => h.spec.dialect === "claude-code");
    expect(stored.length).toBe(commands.length);
    for (const h of stored) expect(h).toMatchObject({ spec: { runsOn: "agent" }, enforcement: { state: "on_agent" } });
  });

  test("Standard Agents takes {files}; other dialects want text", async () => {
    const files = { "agents/hooks/message-log.ts": readFixture("standard-agents/message-log.ts.txt") };
    const preview = await importFile({ dialect: "standard-agents", content: { files }, agent: "shop", dry: true });
    expect(preview.status).toBe(200);
    expect(preview.body.hooks.every((h: { action: string }) => h.action === "code")).toBe(true);
    const wrong = await importFile({ dialect: "loom", content: { files } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.issues[0].path).toBe("content");
  });

  test("a viewer may not import", async () => {
    expect((await importFile({ content: tailored, dry: true }, viewer)).status).toBe(403);
  });
});

describe("GET /api/v1/config/export", () => {
  test("Hookplane YAML by default, as a download, with the warnings header; re-importing it changes nothing", async () => {
    const file = await exportFile("");
    expect(file.status).toBe(200);
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="hookplane.yaml"');
    expect(file.headers.get("content-type")).toMatch(/^application\/yaml/);
    expect(JSON.parse(file.headers.get("x-hookplane-warnings")!)).toEqual([]);
    expect(file.text).toMatch(/^hookplane: 1/);

    const before = await storedHooks();
    const reimported = await importFile({ content: file.text, onConflict: "update" }, admin);
    expect(reimported.status).toBe(201);
    expect(reimported.body.dialect).toBe("hookplane");
    expect(reimported.body.created).toEqual({ agents: [], hooks: 0, schedules: 0 });
    expect(reimported.body.updated.hooks).toBe(before.length);
    expect(byKey(await storedHooks())).toEqual(byKey(before));
    expect((await listHooks(t.db, { projectId: DEFAULT_PROJECT_ID })).every((h) => h.version === 1)).toBe(true);
  });

  test("a foreign dialect round-trips the agent's hooks through the endpoint", async () => {
    const file = await exportFile("?dialect=tailored-ai&agent=researcher");
    expect(file.status).toBe(200);
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="config.yaml"');
    const researcher = (await storedHooks()).filter((h) => h.scope === "agent:researcher" || h.scope.startsWith("schedule:"));
    expect(byKey(expectedHooks("tailored-ai", file.text))).toEqual(byKey(researcher));
  });

  test("what a dialect cannot express comes back in X-Hookplane-Warnings (JSON, ASCII)", async () => {
    const file = await exportFile("?dialect=claude-code&agent=shop");
    expect(file.status).toBe(200);
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="settings.json"');
    const header = file.headers.get("x-hookplane-warnings")!;
    expect(header).toMatch(/^[\x20-\x7e]*$/);
    const warnings = JSON.parse(header);
    expect(warnings.length).toBeGreaterThan(0);
    expect(Number(file.headers.get("x-hookplane-warning-count"))).toBeGreaterThanOrEqual(warnings.length);
    expect(warnings).toContainEqual({ path: "agents", message: expect.stringMatching(/define no agents/) });
    // shop's approve, webhook and save_json hooks are not command hooks: Claude Code cannot run them.
    expect(warnings.some((w: { path: string }) => w.path.startsWith("hooks."))).toBe(true);
  });

  test("sessions=true: a coding agent's file for an agent with no hook yet still bridges its sessions", async () => {
    expect((await importFile({ content: "hookplane: 1\nagents:\n  - name: quiet\n" }, admin)).status).toBe(201);
    expect(JSON.parse((await exportFile("?dialect=codex&agent=quiet")).text)).toEqual({ hooks: {} });
    const recorded = JSON.parse((await exportFile("?dialect=codex&agent=quiet&sessions=true")).text);
    expect(Object.keys(recorded.hooks).sort()).toEqual(["SessionEnd", "SessionStart", "Stop"]);
    expect(recorded.hooks.SessionStart[0].hooks[0].command).toBe("hookplane hook codex --agent quiet");
    expect((await exportFile("?dialect=codex&agent=quiet&sessions=yes")).status).toBe(422);
  });

  test("a one-agent dialect without an agent is a 422; an unknown agent a 404; JSON on request", async () => {
    const ambiguous = await exportFile("?dialect=loom");
    expect(ambiguous.status).toBe(422);
    expect(JSON.parse(ambiguous.text).error.message).toMatch(/agent option/);
    expect((await exportFile("?agent=nobody")).status).toBe(404);
    const json = await exportFile("?format=json&agent=shop");
    expect(json.headers.get("content-disposition")).toBe('attachment; filename="hookplane.json"');
    expect(JSON.parse(json.text)).toMatchObject({ hookplane: 1, agents: [{ name: "shop" }] });
  });
});
