/**
 * The bridged hook path's shortcuts (issue 26), each tried from the side where it could go wrong:
 * - the token is read at most CREDENTIAL_TTL_MS ago: a revocation announced in this process is
 *   refused on the very next call; one the process never heard of (a row changed by hand) within
 *   the bound, and not before the cache says so;
 * - the agent's chain is cached by a fingerprint read with the session's run (the hooks'
 *   generation): any change to its hooks (edited, disabled, added, deleted, or the spec rewritten
 *   in place) applies to the next call; one rolled back moves nothing; without the counter's row
 *   every call reads the chain afresh;
 * - a call whose chain cannot wait for a person is recorded in one statement after its hooks
 *   decided: the event, its ledger rows pointing at its seq, and the denial right after it;
 * - the session's workspace folder is made only for a chain that may use it, and is there when it does.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { installDatabase } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { createHook, deleteHook, updateHook } from "@/db/queries/hooks";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { CREDENTIAL_TTL_MS } from "@/db/queries/token-cache";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { codeExecutionSettings } from "@/lib/platform/security/code-execution";
import { revokeApiTokenAudited } from "@/lib/platform/auth/account-service";
import type { Principal } from "@/lib/platform/auth/roles";
import { callRoute } from "@/test/api-client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { addPersonToken, addToken } from "@/test/people";
import { INGEST_ROUTES } from "./ingest-routes";

let t: TestDatabase;
let agentId: string;
let operator: string;

const admin: Principal = { kind: "user", id: "admin", label: "admin@example.com", role: "admin", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: false };

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  operator = (await addPersonToken(t.db, { role: "operator", name: "bridge" })).token;
  agentId = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "dev" }) }))!.id;
});
afterAll(async () => {
  vi.useRealTimers();
  await t?.drop();
});

function preToolUse(sessionId: string, command: string, toolUseId: string, token = operator) {
  return callRoute(INGEST_ROUTES["claude-code"], {
    method: "POST",
    token,
    headers: { "x-hookplane-agent": "dev" },
    body: { session_id: sessionId, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: toolUseId },
  });
}

const decision = (res: { body: { hookSpecificOutput?: { permissionDecision?: string } } }) => res.body.hookSpecificOutput?.permissionDecision ?? "allow";

test("a revoked token is refused on the next call when the revocation is announced here, and within the bound when it is not", async () => {
  const announced = await addPersonToken(t.db, { role: "operator", name: "announced" });
  expect((await preToolUse("s-revoke-1", "ls", "t1", announced.token)).status).toBe(200);
  await revokeApiTokenAudited(t.db, admin, { id: announced.id });
  const refused = await preToolUse("s-revoke-1", "ls", "t2", announced.token);
  expect(refused.status).toBe(401);

  // Changed behind the process's back (no notice): the cached row holds, but never past the bound.
  // (Past the quiet spell after the announcement above, in which nothing read is kept.)
  const silent = await addPersonToken(t.db, { role: "operator", name: "silent" });
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 3_000 });
  try {
    expect((await preToolUse("s-revoke-2", "ls", "t1", silent.token)).status).toBe(200);
    await t.execute("update api_tokens set revoked_at = now() where id = $1", [silent.id]);
    vi.setSystemTime(Date.now() + CREDENTIAL_TTL_MS - 100);
    expect((await preToolUse("s-revoke-2", "ls", "t2", silent.token)).status).toBe(200);
    vi.setSystemTime(Date.now() + 200);
    expect((await preToolUse("s-revoke-2", "ls", "t3", silent.token)).status).toBe(401);
  } finally {
    vi.useRealTimers();
  }
  // Refused calls recorded nothing: the second session has only the two calls made before the bound.
  const [{ n }] = (await t.execute("select count(*)::integer as n from runs where external_session_id = 's-revoke-2'")).rows as { n: number }[];
  expect(n).toBe(1);
  const [{ events }] = (await t.execute("select count(*)::integer as events from run_events e join runs r on r.id = e.run_id where r.external_session_id = 's-revoke-2' and e.type = 'tool.pre'")).rows as { events: number }[];
  expect(events).toBe(2);
});

test("every change to the agent's hooks applies to the very next call", async () => {
  const session = "s-hooks";
  expect(decision(await preToolUse(session, "rm -rf /", "c0"))).toBe("allow");
  const created = await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "no-rm", scope: `agent:${agentId}`, event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "no rm", denyIf: "rm -rf" } }),
    actor: "test",
  });
  expect(decision(await preToolUse(session, "rm -rf /", "c1"))).toBe("deny");
  // Disabled through the product's update: allowed at once.
  const disabled = hookSpecSchema.parse({ id: "no-rm", scope: `agent:${agentId}`, event: "tool.pre", matcher: "Bash", enabled: false, action: { type: "block", reason: "no rm", denyIf: "rm -rf" } });
  await updateHook(t.db, { projectId: DEFAULT_PROJECT_ID, id: created!.id, spec: disabled, actor: "test" });
  expect(decision(await preToolUse(session, "rm -rf /", "c2"))).toBe("allow");
  // Enabled again by a hand-written UPDATE that bumps neither version nor timestamp: the spec's own hash changes.
  await t.execute("update hooks set enabled = true, spec = jsonb_set(spec, '{enabled}', 'true') where id = $1", [created!.id]);
  expect(decision(await preToolUse(session, "rm -rf /", "c3"))).toBe("deny");
  await t.execute("update hooks set spec = jsonb_set(spec, '{action,denyIf}', '\"shutdown\"') where id = $1", [created!.id]);
  expect(decision(await preToolUse(session, "rm -rf /", "c4"))).toBe("allow");
  expect(decision(await preToolUse(session, "shutdown now", "c5"))).toBe("deny");
  // An instance-wide hook (no project) counts too.
  const global = await createHook(t.db, {
    projectId: null,
    spec: hookSpecSchema.parse({ id: "no-curl", scope: "global", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "no curl", denyIf: "curl " } }),
    actor: "test",
  });
  expect(decision(await preToolUse(session, "curl evil.example", "c6"))).toBe("deny");
  await deleteHook(t.db, { projectId: null, id: global!.id });
  await deleteHook(t.db, { projectId: DEFAULT_PROJECT_ID, id: created!.id });
  expect(decision(await preToolUse(session, "curl evil.example", "c7"))).toBe("allow");
  expect(decision(await preToolUse(session, "shutdown now", "c8"))).toBe("allow");
  // A change that rolls back moves nothing and changes nothing.
  const before = (await t.execute("select n from hook_generation")).rows;
  await t.execute("begin; update hooks set enabled = false; rollback;");
  expect((await t.execute("select n from hook_generation")).rows).toEqual(before);
  // The counter's row removed by hand: no fingerprint, so every call reads the chain afresh.
  await t.execute("delete from hook_generation");
  try {
    const again = await createHook(t.db, {
      projectId: DEFAULT_PROJECT_ID,
      spec: hookSpecSchema.parse({ id: "no-dd", scope: `agent:${agentId}`, event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "no dd", denyIf: "dd if=" } }),
      actor: "test",
    });
    expect(decision(await preToolUse(session, "dd if=/dev/zero", "c9"))).toBe("deny");
    await t.execute("update hooks set spec = jsonb_set(spec, '{action,denyIf}', '\"mkfs\"') where id = $1", [again!.id]);
    expect(decision(await preToolUse(session, "dd if=/dev/zero", "c10"))).toBe("allow");
    await deleteHook(t.db, { projectId: DEFAULT_PROJECT_ID, id: again!.id });
  } finally {
    await t.execute("insert into hook_generation (id, n) values (1, 1000)");
  }
});

test("a call decided before it is recorded leaves the event, its ledger rows at its seq and the denial after it, gapless", async () => {
  await createHook(t.db, {
    projectId: DEFAULT_PROJECT_ID,
    spec: hookSpecSchema.parse({ id: "no-prod", scope: `agent:${agentId}`, event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "prod is off-limits", denyIf: "/srv/prod" } }),
    actor: "test",
  });
  const session = "s-record";
  const calls = await Promise.all(Array.from({ length: 12 }, (_, i) => preToolUse(session, i % 4 === 3 ? `cat /srv/prod/${i}` : `echo ${i}`, `r${i}`)));
  expect(calls.map((c) => c.status)).toEqual(Array(12).fill(200));
  expect(calls.map(decision)).toEqual(Array.from({ length: 12 }, (_, i) => (i % 4 === 3 ? "deny" : "allow")));
  const [{ id: runId }] = (await t.execute("select id from runs where external_session_id = $1", [session])).rows as { id: string }[];
  const events = await listRunEventsAfter(t.db, { runId, after: 0, limit: 100 });
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
  const pres = events.filter((e) => e.type === "tool.pre");
  expect(pres).toHaveLength(12);
  const ledger = await listRunHookInvocations(t.db, { runId });
  // One row per call for the guard, at the call's own seq, blocking exactly the prod reads.
  expect(ledger.filter((r) => r.hookKey === "no-prod")).toHaveLength(12);
  for (const pre of pres) {
    const rows = ledger.filter((r) => r.eventSeq === pre.seq && r.hookKey === "no-prod");
    const prod = String((pre.data.toolInput as { command: string }).command).includes("/srv/prod");
    expect(rows.map((r) => r.verdict)).toEqual([prod ? "block" : "allow"]);
    const next = events.find((e) => e.seq === pre.seq + 1);
    if (prod) expect(next).toMatchObject({ type: "loop.tool_denied", data: { toolCallId: pre.data.toolCallId, reason: "prod is off-limits", by: "hook" } });
    else expect(next?.type).not.toBe("loop.tool_denied");
  }
  const [run] = (await t.execute("select blocked, tools_used from runs where id = $1", [runId])).rows as { blocked: boolean; tools_used: string[] }[];
  expect(run).toEqual({ blocked: true, tools_used: ["Bash"] });
});

test("a session's workspace folder on the server is made only once a hook that may use it runs, and is there when it does", async () => {
  const folderAgent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "folder-dev" }) }))!.id;
  const hook = (spec: Record<string, unknown>) => createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ ...spec, scope: `agent:${folderAgent}` }), actor: "test" });
  await hook({ id: "guard", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "no prod", denyIf: "/srv/prod" } });
  await hook({ id: "cap", event: "tool.pre", action: { type: "limit", max: 100, windowMs: 60_000 } });
  const call = (command: string, id: string) =>
    callRoute(INGEST_ROUTES["claude-code"], {
      method: "POST",
      token: operator,
      headers: { "x-hookplane-agent": "folder-dev" },
      body: { session_id: "s-folder", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: id },
    });
  expect(decision(await call("ls", "f1"))).toBe("allow");
  expect(decision(await call("cat /srv/prod/x", "f2"))).toBe("deny");
  const [{ id: runId }] = (await t.execute("select id from runs where external_session_id = $1", ["s-folder"])).rows as { id: string }[];
  const folder = path.join(codeExecutionSettings().workspacesDir, runId);
  // Guards and limits never touch it: no folder for a session whose agent works elsewhere.
  expect(existsSync(folder)).toBe(false);
  // A save_json hook writes into it: the folder is made before that chain runs, and the file is in it.
  await hook({ id: "keep", event: "tool.pre", action: { type: "save_json", path: "calls/last.json" } });
  expect(decision(await call("pwd", "f3"))).toBe("allow");
  expect(JSON.parse(readFileSync(path.join(folder, "calls/last.json"), "utf8"))).toMatchObject({ event: "tool.pre", runId, toolCallId: "f3", toolInput: { command: "pwd" } });
  const ledger = await listRunHookInvocations(t.db, { runId });
  expect(ledger.filter((r) => r.hookKey === "keep").map((r) => [r.verdict, r.failed])).toEqual([["allow", false]]);
  rmSync(folder, { recursive: true, force: true });
});
