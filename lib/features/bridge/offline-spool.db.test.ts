/**
 * Nothing ungoverned goes unrecorded (issue 27): with Hookplane unreachable, the real `hookplane`
 * CLI blocks a gated call (fail closed), lets a non-gated one and a `--fail-open` one through, and
 * keeps all three in its offline spool; once Hookplane answers again, the next hook call sends them
 * (from a process of its own) and they appear in the person's run, marked offline, with a denial for
 * the refused call; sent again they are not recorded twice; the `offline_decisions` alert counts
 * them. The spool is bounded: past its size the oldest go and the loss is audited.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { measureAlert } from "@/lib/features/alerts/alert-evaluator";
import { startRouteServer, type RouteServer } from "@/lib/platform/api/route-server";
import { callRoute } from "@/test/api-client";
import { runHookplaneCli } from "@/test/bridges/hook-cli-runner";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPerson, addToken } from "@/test/people";
import { startTcpProxy, type TcpProxy } from "@/test/tcp-proxy";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import * as offlineRoute from "@/app/api/v1/ingest/offline/route";

let t: TestDatabase;
let server: RouteServer;
let proxy: TcpProxy;
let configDir: string;
let bridge: string;
let agentId: string;
let devId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  const dev = await addPerson(t.db, { email: "dev@example.com", role: "operator" });
  devId = dev.id;
  bridge = (await addToken(t.db, { role: "viewer", kind: "bridge", userId: dev.id, name: "laptop" })).token;
  agentId = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "dev-agent" }) }))!.id;
  server = await startRouteServer([
    { method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST },
    { method: "POST", path: "/api/v1/ingest/offline", handler: offlineRoute.POST },
  ]);
  const { port } = new URL(server.url);
  proxy = await startTcpProxy({ host: "127.0.0.1", port: Number(port) });
  configDir = mkdtempSync(path.join(tmpdir(), "hookplane-spool-"));
});
afterAll(async () => {
  await proxy?.stop();
  await server?.close();
  rmSync(configDir, { recursive: true, force: true });
  await t?.drop();
});

const claude = (event: string, extra: Record<string, unknown>) => ({ session_id: "offline-session", cwd: "/repo", transcript_path: "/tmp/t.jsonl", hook_event_name: event, ...extra });
const bash = (id: string, command: string) => ({ tool_name: "Bash", tool_input: { command }, tool_use_id: id });
const hook = (payload: unknown, extra: string[] = []) =>
  runHookplaneCli(["hook", "claude-code", "--agent", "dev-agent", ...extra], payload, { HOOKPLANE_URL: proxy.proxied(server.url), HOOKPLANE_TOKEN: bridge, HOOKPLANE_CONFIG_DIR: configDir });
const spooled = () => readdirSync(path.join(configDir, "spool")).filter((n) => n.endsWith(".json"));

async function offlineRows() {
  return (await t.execute("select id, decision from offline_decisions order by decided_at")).rows as { id: string; decision: string }[];
}

test("decided alone while Hookplane is down, sent once it is back: in the person's run, marked offline, never twice", async () => {
  await proxy.close();
  const blocked = await hook(claude("PreToolUse", bash("toolu_1", "rm -rf build")));
  expect(blocked.code).toBe(2);
  expect(blocked.stderr).toContain("blocking because --fail-open is not set");
  const after = await hook(claude("PostToolUse", { ...bash("toolu_0", "ls"), tool_response: { stdout: "a" } }));
  expect(after.code).toBe(0);
  const open = await hook(claude("PreToolUse", bash("toolu_2", "make")), ["--fail-open"]);
  expect(open.code).toBe(0);
  expect(spooled()).toHaveLength(3);
  expect(await offlineRows()).toEqual([]);

  // Back: the next call is answered, and sends the spool by itself.
  await proxy.restore();
  const back = await hook(claude("PreToolUse", bash("toolu_3", "ls")));
  expect(back.code).toBe(0);
  await expect.poll(async () => (await offlineRows()).map((r) => r.decision), { timeout: 15_000 }).toEqual(["blocked", "allowed", "allowed"]);
  await expect.poll(() => spooled(), { timeout: 5_000 }).toEqual([]);

  const [run] = (await t.execute("select id, actor_user_id, blocked from runs where external_session_id = 'offline-session'")).rows as { id: string; actor_user_id: string; blocked: boolean }[];
  expect(run).toMatchObject({ actor_user_id: devId, blocked: true });
  const events = (await t.execute("select seq, type, data from run_events where run_id = $1 order by seq", [run.id])).rows as { seq: number; type: string; data: Record<string, unknown> }[];
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  const offline = events.filter((e) => e.data.offline);
  expect(offline.map((e) => [e.type, (e.data.offline as { decision: string }).decision])).toEqual([
    ["tool.pre", "blocked"],
    ["tool.post", "allowed"],
    ["tool.pre", "allowed"],
  ]);
  expect((offline[0].data.offline as { reason: string }).reason).toContain("unreachable");
  const denial = events.find((e) => e.type === "loop.tool_denied");
  expect(denial?.data).toMatchObject({ toolCallId: "toolu_1", by: "offline" });
  // The live call after the outage is there too, not marked.
  expect(events.filter((e) => e.type === "tool.pre" && !e.data.offline).map((e) => e.data.toolCallId)).toEqual(["toolu_3"]);

  // Sent again (a flusher whose answer was lost): recorded once.
  const ids = (await offlineRows()).map((r) => r.id);
  const replay = await callRoute(offlineRoute.POST, {
    method: "POST",
    token: bridge,
    body: { entries: [{ id: ids[0], bridge: "claude-code", agent: "dev-agent", payload: claude("PreToolUse", bash("toolu_1", "rm -rf build")), decision: "blocked", reason: "again", decidedAt: new Date().toISOString() }] },
  });
  expect(replay.body).toMatchObject({ recorded: 0, duplicates: 1 });
  // An entry its bridge reads but that maps to a malformed event (an empty tool call id) is unreadable, not stored.
  const DRIFTED_ID = randomUUID();
  const drifted = await callRoute(offlineRoute.POST, {
    method: "POST",
    token: bridge,
    body: { entries: [{ id: DRIFTED_ID, bridge: "claude-code", agent: "dev-agent", payload: claude("PreToolUse", bash("", "rm -rf dist")), decision: "blocked", reason: "offline", decidedAt: new Date().toISOString() }] },
  });
  expect(drifted.body).toMatchObject({ recorded: 0, unreadable: 1, outcomes: [{ id: DRIFTED_ID, outcome: "unreadable" }] });
  const [{ n }] = (await t.execute("select count(*)::integer as n from run_events where run_id = $1 and data ? 'offline'", [run.id])).rows as { n: number }[];
  expect(n).toBe(3);

  // The alert kind counts what was reported in its window, for the agent.
  const now = new Date(Date.now() + 1000);
  expect(await measureAlert(t.db, { projectId: DEFAULT_PROJECT_ID, kind: "offline_decisions", agentId, windowMinutes: 60, waitMinutes: null }, now)).toBe(3);
  expect(await measureAlert(t.db, { projectId: DEFAULT_PROJECT_ID, kind: "offline_decisions", agentId: null, windowMinutes: 60, waitMinutes: null }, new Date(now.getTime() + 61 * 60_000))).toBe(0);
});

test("the spool is bounded: past its size the oldest go, and the loss is sent and audited", async () => {
  const dir = path.join(configDir, "spool");
  mkdirSync(dir, { recursive: true });
  // 1,000 waiting (as after a long outage), written as the CLI writes them.
  for (let i = 0; i < 1000; i++) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
    writeFileSync(
      path.join(dir, `${String(1_000_000 + i).padStart(15, "0")}-${id}.json`),
      JSON.stringify({ id, decidedAt: new Date(Date.now() - 60_000 + i).toISOString(), bridge: "claude-code", agent: "dev-agent", payload: claude("PostToolUse", { ...bash(`old_${i}`, "ls"), tool_response: {} }), decision: "allowed", reason: "down" }),
    );
  }
  await proxy.close();
  await hook(claude("PostToolUse", { ...bash("toolu_9", "ls"), tool_response: {} }));
  expect(spooled()).toHaveLength(1000);
  expect(spooled()).not.toContain(`${String(1_000_000).padStart(15, "0")}-00000000-0000-4000-8000-000000000000.json`);
  await proxy.restore();
  const flushed = await runHookplaneCli(["spool", "flush"], "", { HOOKPLANE_URL: proxy.proxied(server.url), HOOKPLANE_TOKEN: bridge, HOOKPLANE_CONFIG_DIR: configDir });
  expect(flushed.stdout).toContain("sent 1000 decisions taken offline");
  expect(spooled()).toEqual([]);
  const [audit] = (await t.execute("select action, after from audit_log where action = 'offline.dropped'")).rows as { action: string; after: { dropped: number } }[];
  expect(audit.after.dropped).toBe(1);
});

test("a server that answers 5xx is no answer: the gated call is blocked (fail closed), kept as decided offline, and recorded once Hookplane answers", async () => {
  const failing = await startRouteServer([{ method: "POST", path: "/api/v1/ingest/claude-code", handler: async () => Response.json({ error: { code: "unavailable", message: "overloaded" } }, { status: 503 }) }]);
  const dir = mkdtempSync(path.join(tmpdir(), "hookplane-spool-5xx-"));
  const env = (url: string) => ({ HOOKPLANE_URL: url, HOOKPLANE_TOKEN: bridge, HOOKPLANE_CONFIG_DIR: dir });
  try {
    const payload = { ...claude("PreToolUse", bash("toolu_5xx", "terraform destroy")), session_id: "five-hundred" };
    const refused = await runHookplaneCli(["hook", "claude-code", "--agent", "dev-agent"], payload, env(failing.url));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/answered 503: overloaded/);
    // A 4xx is the server's answer about the request (a bad token, an unknown agent): not spooled. A 5xx is.
    expect(readdirSync(path.join(dir, "spool")).filter((n) => n.endsWith(".json"))).toHaveLength(1);
    const flushed = await runHookplaneCli(["spool", "flush"], "", env(server.url));
    expect(flushed.code).toBe(0);
    await expect.poll(async () => (await t.execute("select decision from offline_decisions od join runs r on r.id = od.run_id where r.external_session_id = 'five-hundred'")).rows, { timeout: 15_000 }).toEqual([{ decision: "blocked" }]);
    const events = (await t.execute("select e.type, e.data from run_events e join runs r on r.id = e.run_id where r.external_session_id = 'five-hundred' order by e.seq")).rows as { type: string; data: Record<string, unknown> }[];
    expect(events.map((e) => e.type)).toEqual(["tool.pre", "loop.tool_denied"]);
    expect(events[0].data.offline).toMatchObject({ decision: "blocked", reason: expect.stringContaining("answered 503") });
  } finally {
    await failing.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
