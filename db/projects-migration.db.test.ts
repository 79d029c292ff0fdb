/**
 * drizzle/0016_projects.sql on an installation that has people and work: migrated to 0015 first,
 * filled (people of every role, one without a role, agents, hooks, a schedule, runs, an approval,
 * a secret, a price, an alert rule, a memory note, a token, ledger and audit rows sealed into their
 * chains), then migrated on. Everything lands in the project "default", every person keeps their
 * role there, admins become instance admins, and the chains verify to the same head.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { migrateDatabase } from "@/db/migrate";
import { verifyChain } from "@/db/queries/chain-verification";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import type { TestDatabase } from "@/test/database";
import { databaseThrough, sealByHand } from "@/test/old-migrations";

let t: TestDatabase;
let drop: () => Promise<void>;

async function rows<T = Record<string, unknown>>(text: string, params?: unknown[]) {
  return (await t.execute(text, params)).rows as T[];
}

beforeAll(async () => {
  ({ t, drop } = await databaseThrough(15));
});
afterAll(async () => {
  await drop?.();
});

const PROJECT_TABLES = ["agents", "hooks", "schedules", "runs", "approvals", "secrets", "model_prices", "alert_rules", "memory_notes", "api_tokens", "audit_log", "hook_invocations"];

test("an installation becomes the project default: every row moves in, every person keeps their role", async () => {
  expect(await rows("select to_regclass('projects') as t")).toEqual([{ t: null }]);
  const people: Record<string, string> = {};
  for (const [email, role] of [["ada@example.com", "admin"], ["otto@example.com", "operator"], ["vera@example.com", "viewer"], ["nina@example.com", null]] as const) {
    const [row] = await rows<{ id: string }>("insert into users (email, password_hash, role) values ($1, 'x', $2) returning id", [email, role]);
    people[email] = row.id;
  }
  const [agent] = await rows<{ id: string }>("insert into agents (name, model, max_turns, timeout_ms) values ('old', 'scripted', 3, 10000) returning id");
  await t.execute("insert into hooks (key, scope, event, spec) values ('guard', 'global', 'tool.pre', '{}'), ('guard', 'agent:old', 'tool.pre', '{}')");
  const [schedule] = await rows<{ id: string }>("insert into schedules (agent_id, interval_ms, prompt) values ($1, 60000, 'tick') returning id", [agent.id]);
  const [run] = await rows<{ id: string }>("insert into runs (agent_id, schedule_id, prompt, status) values ($1, $2, 'go', 'waiting_approval') returning id", [agent.id, schedule.id]);
  await t.execute("insert into approvals (run_id, hook_key, tool_name, tool_call_id) values ($1, 'ask', 'Bash', 'c1')", [run.id]);
  await t.execute("insert into secrets (name, ciphertext) values ('SLACK', 'sealed')");
  await t.execute("insert into model_prices (model_pattern, input_usd_per_m, output_usd_per_m) values ('gpt-*', 1, 2)");
  await t.execute("insert into alert_rules (name, kind, threshold, cooldown_minutes) values ('spend', 'cost', 5, 60)");
  await t.execute("insert into memory_notes (name, content) values ('todo', 'ship')");
  await t.execute("insert into api_tokens (name, token_hash, prefix, role, user_id) values ('ci', 'h1', 'hp_x', 'operator', $1)", [people["otto@example.com"]]);
  await t.execute("insert into hook_invocations (run_id, event_seq, event, hook_key, matched, verdict) values ($1, 1, 'tool.pre', 'guard', true, 'allow')", [run.id]);
  await t.execute("insert into audit_log (actor, action, entity_type, entity_id, after) values ('ada@example.com', 'agent.create', 'agent', $1, '{\"name\":\"old\"}')", [agent.id]);
  const ledgerHead = await sealByHand(t, "hook_invocations");
  const auditHead = await sealByHand(t, "audit_log");
  const before: Record<string, unknown[]> = {};
  for (const table of PROJECT_TABLES) before[table] = await rows(`select * from ${table} order by 1`);

  await migrateDatabase(t);

  expect(await rows("select id, slug, name from projects")).toEqual([{ id: DEFAULT_PROJECT_ID, slug: "default", name: "Default" }]);
  for (const table of PROJECT_TABLES) {
    const after = await rows<Record<string, unknown>>(`select * from ${table} order by 1`);
    // Every row is there, unchanged but for its project (columns later migrations add are theirs to check).
    const columnsBefore = new Set(Object.keys(before[table][0] ?? {}));
    const asBefore = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).filter(([column]) => columnsBefore.has(column)));
    expect(after.map(({ project_id: _p, ...rest }) => asBefore(rest)), table).toEqual(before[table]);
    expect(new Set(after.map((r) => r.project_id)), table).toEqual(new Set([DEFAULT_PROJECT_ID]));
  }
  const members = await rows<{ email: string; role: string }>(
    "select u.email, m.role from project_members m join users u on u.id = m.user_id where m.project_id = $1 order by u.email",
    [DEFAULT_PROJECT_ID],
  );
  expect(members).toEqual([
    { email: "ada@example.com", role: "admin" },
    { email: "otto@example.com", role: "operator" },
    { email: "vera@example.com", role: "viewer" },
  ]);
  expect(await rows("select email, instance_admin from users order by email")).toEqual([
    { email: "ada@example.com", instance_admin: true },
    { email: "nina@example.com", instance_admin: false },
    { email: "otto@example.com", instance_admin: false },
    { email: "vera@example.com", instance_admin: false },
  ]);
  expect(await rows("select column_name from information_schema.columns where table_name = 'users' and column_name = 'role'")).toEqual([]);

  // The chains still verify to the same head: project_id is not part of what they hash.
  for (const [table, head] of [["hook_invocations", ledgerHead], ["audit_log", auditHead]] as const) {
    const report = await verifyChain(t.db, { table });
    expect(report.firstBroken, table).toBeUndefined();
    expect(report.head, table).toEqual(head);
  }

  // No insert lands in a project by omission: the column has no default left.
  await expect(t.execute("insert into agents (name, model, max_turns, timeout_ms) values ('new', 'scripted', 3, 10000)")).rejects.toThrow(/project_id/);
  // Names are unique per project now, not per instance.
  const [other] = await rows<{ id: string }>("insert into projects (slug, name) values ('team-b', 'Team B') returning id");
  await t.execute("insert into agents (project_id, name, model, max_turns, timeout_ms) values ($1, 'old', 'scripted', 3, 10000)", [other.id]);
  await expect(t.execute("insert into agents (project_id, name, model, max_turns, timeout_ms) values ($1, 'old', 'scripted', 3, 10000)", [other.id])).rejects.toThrow(/agents_project_name_uq/);
  // Instance-wide hooks (no project) keep one key per scope, as a project's do.
  await t.execute("insert into hooks (project_id, key, scope, event, spec) values (null, 'guard', 'global', 'tool.pre', '{}')");
  await expect(t.execute("insert into hooks (project_id, key, scope, event, spec) values (null, 'guard', 'global', 'tool.pre', '{}')")).rejects.toThrow(/hooks_project_scope_key_uq/);
});
