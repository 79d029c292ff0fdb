/**
 * All or nothing: a change and its audit row commit together. The cases are the ones that used to
 * leave records behind: a write that succeeded followed by an audit row PostgreSQL refused.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { createAgentAudited, deleteAgentAudited } from "@/lib/features/agents/agent-service";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import type { Principal } from "@/lib/platform/auth/roles";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { createScheduleAudited } from "@/lib/features/schedules/schedule-service";
import { audited } from "./audit";
import { createAgent } from "./agents";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

let t: TestDatabase;
const admin: Principal = { kind: "user", id: "u", label: "admin@example.com", role: "admin", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: false };

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
});
afterAll(async () => {
  await t.drop();
});

async function count(table: string): Promise<number> {
  const { rows } = await t.execute(`select count(*)::int as n from ${table}`, []);
  return Number(rows[0].n);
}

test("a change whose audit row cannot be written is rolled back with it", async () => {
  // A lone surrogate: the text column stores U+FFFD, the audit row's jsonb refuses the escape.
  const spec = agentSpecSchema.parse({ name: "half-made", description: "bad \uD800 text" });
  await expect(createAgentAudited(t.db, admin, spec)).rejects.toThrow();
  expect(await count("agents")).toBe(0);
  expect(await count("audit_log")).toBe(0);
});

test("a change that throws after writing leaves neither the write nor an audit row", async () => {
  await expect(
    audited(t.db, { projectId: DEFAULT_PROJECT_ID, actor: "a", action: "agent.create", entityType: "agent" }, async (tx) => {
      await createAgent(tx, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name: "written-then-failed" }) });
      throw new Error("the next step failed");
    }),
  ).rejects.toThrow("the next step failed");
  expect(await count("agents")).toBe(0);
  expect(await count("audit_log")).toBe(0);
});

test("a schedule whose second hook clashes leaves no schedule, no first hook and no audit row", async () => {
  const agent = await createAgentAudited(t.db, admin, agentSpecSchema.parse({ name: "scheduled" }));
  const hook = hookSpecSchema.parse({ id: "same", scope: "global", event: "session.end", action: { type: "log" } });
  await expect(
    createScheduleAudited(t.db, admin, { agent: agent.name, intervalMs: 60_000, prompt: "p", enabled: true, hooks: [hook, hook] }),
  ).rejects.toMatchObject({ status: 409 });
  expect(await count("schedules")).toBe(0);
  expect(await count("hooks")).toBe(0);
  expect(await count("audit_log where action like 'schedule.%'")).toBe(0);
});

test("a change and its audit row commit together, with what only the change knew", async () => {
  const agent = await createAgentAudited(t.db, admin, agentSpecSchema.parse({ name: "kept" }));
  await deleteAgentAudited(t.db, admin, "kept");
  const { rows } = await t.execute(`select action, entity_id from audit_log where entity_id = $1 order by id`, [agent.id]);
  expect(rows).toEqual([
    { action: "agent.create", entity_id: agent.id },
    { action: "agent.delete", entity_id: agent.id },
  ]);
});
