/**
 * npm run bench:ingest-cpu — the CPU one hook call costs in Hookplane's own code, in this process:
 * the Claude Code ingest route's handler (credential, dialect, payload checks, session, hooks, the
 * write) called directly, with no HTTP, client or server process around it, on a fresh database
 * (PGlite in memory, or a new one on DATABASE_URL's PostgreSQL). Through HTTP (bench:ingest) a
 * change of a few percent drowns in the machine's noise; here the same code is measured to a few
 * percent, so a change to the hook path can be tried before and after.
 *
 * Two agents, as bench:ingest-people's: `plain` (the guard alone: block with denyIf /srv/prod) and
 * `people` (a per-person `when` rule that never matches this person and a per-person `limit` that
 * never refuses, then the guard), called with one person's credential. Each round runs
 * BENCH_SESSIONS (20) sessions at once of BENCH_CALLS (100) tool calls (SessionStart, PreToolUse
 * and PostToolUse, SessionEnd; one call in ten denied) on each agent in turn, after two warm-up
 * rounds; prints each round's CPU a call (process.cpuUsage: on PGlite the database's work is in
 * it; on PostgreSQL its backends' CPU is read from /proc and printed beside) and the medians over
 * BENCH_ROUNDS (7). The periodic sealer does not run (a web process seals in the background;
 * bench:ingest counts it). npm runs it bundled, as production runs (bench/bundled.mjs), not through
 * tsx; BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles it.
 */
import { installDatabase, queryRows } from "@/db/client";
import { sql } from "drizzle-orm";
import { createAgent } from "@/db/queries/agents";
import { createHook } from "@/db/queries/hooks";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { INGEST_ROUTES } from "@/lib/features/bridge/ingest-routes";
import { requestWithBody, type RouteAnswer } from "@/lib/platform/api/route";
import { createTestDatabase } from "@/test/database";
import { addPerson, addToken, DEFAULT_PROJECT_ID } from "@/test/people";
import { positiveInts } from "./ingest-config";
import { planLevel } from "./ingest-sessions";
import { cpuMeter } from "./process-cpu";

const [SESSIONS] = positiveInts("BENCH_SESSIONS", "20");
const [CALLS] = positiveInts("BENCH_CALLS", "100");
const [ROUNDS] = positiveInts("BENCH_ROUNDS", "7");
const AGENTS = ["plain", "people"] as const;
type AgentName = (typeof AGENTS)[number];

const t = await createTestDatabase();
installDatabase(t);
for (const name of AGENTS) {
  const agent = (await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: agentSpecSchema.parse({ name, model: "scripted", tools: [] }) }))!;
  const hook = (spec: Record<string, unknown>) => createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ ...spec, scope: `agent:${agent.id}` }), actor: "bench" });
  if (name === "people") {
    await hook({ id: "contractors-no-bash", event: "tool.pre", matcher: "Bash", when: "actor.email: /@contractors\\.example$/", action: { type: "block", reason: "contractors do not run Bash" } });
    await hook({ id: "per-person-limit", event: "tool.pre", action: { type: "limit", max: 1_000_000, windowMs: 60_000, per: "actor" } });
  }
  await hook({ id: "no-prod", name: "No prod", event: "tool.pre", matcher: "Bash", action: { type: "block", reason: "prod is off-limits", denyIf: "/srv/prod" } });
}
const person = await addPerson(t.db, { email: "dev@example.com", role: "operator" });
const { token } = await addToken(t.db, { role: "operator", userId: person.id, name: "bench" });

const route = INGEST_ROUTES["claude-code"] as unknown as { answer: (request: Request) => Promise<RouteAnswer> };
const signal = new AbortController().signal;

/** One hook call as server.ts hands it to the route: node's headers behind get/has, the body beside the request. */
async function send(agent: AgentName, body: string): Promise<void> {
  const bytes = Buffer.from(body);
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    "content-length": String(bytes.length),
    "x-hookplane-agent": agent,
    host: "localhost",
  };
  const request = {
    method: "POST",
    url: "http://localhost/api/v1/ingest/claude-code",
    headers: { get: (name: string) => headers[name.toLowerCase()] ?? null, has: (name: string) => name.toLowerCase() in headers },
    signal,
    body: null,
  } as unknown as Request;
  const answered = await route.answer(requestWithBody(request, bytes));
  if (answered instanceof Response) throw new Error(`the route answered ${answered.status}: ${await answered.text()}`);
  JSON.stringify(answered.json);
}

/** PostgreSQL's backends serving this database (none on PGlite: its work is this process's). */
const backends = async () =>
  process.env.DATABASE_URL ? (await queryRows<{ pid: number }>(t.db, sql`select pid from pg_stat_activity where datname = current_database()`)).map((r) => r.pid) : [];
const database = cpuMeter({ backends });

/** CPU microseconds a call over one level of SESSIONS sessions at once: this process's, and the database's backends' (0 on PGlite). */
async function level(agent: AgentName, tag: string): Promise<{ process: number; database: number }> {
  const plans = planLevel(`${agent}-${tag}`, SESSIONS, CALLS);
  let calls = 0;
  await database.start();
  const before = process.cpuUsage();
  await Promise.all(
    plans.map(async (plan) => {
      for (const call of plan.calls) {
        await send(agent, call.body);
        calls++;
      }
    }),
  );
  const used = process.cpuUsage(before);
  const backendMs = (await database.stop()).backends ?? 0;
  return { process: (used.user + used.system) / calls, database: (backendMs * 1000) / calls };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const agent of AGENTS) for (const warm of ["w1", "w2"]) await level(agent, warm);
const spent: Record<AgentName, number[]> = { plain: [], people: [] };
const inDatabase: Record<AgentName, number[]> = { plain: [], people: [] };
const onPostgres = Boolean(process.env.DATABASE_URL);
const shown = (agent: AgentName) => `${spent[agent].at(-1)!.toFixed(0)}${onPostgres ? ` + ${inDatabase[agent].at(-1)!.toFixed(0)}` : ""} µs`;
for (let round = 0; round < ROUNDS; round++) {
  // The order flips every round, so a drift of the machine favours neither.
  const order = round % 2 === 0 ? AGENTS : [...AGENTS].reverse();
  for (const agent of order) {
    const used = await level(agent, `r${round}`);
    spent[agent].push(used.process);
    inDatabase[agent].push(used.database);
  }
  console.log(`round ${round + 1}: plain ${shown("plain")}, people ${shown("people")} CPU a call${onPostgres ? " (this process + the database's backends)" : ""}`);
}
const plain = median(spent.plain);
const people = median(spent.people);
const where = onPostgres ? "PostgreSQL" : "PGlite in memory (the database's CPU counted in the process's)";
const backendsToo = onPostgres ? `; the database's backends: plain ${median(inDatabase.plain).toFixed(0)} µs, with per-person policy ${median(inDatabase.people).toFixed(0)} µs a call` : "";
console.log(
  `${where}, ${SESSIONS} sessions × ${CALLS} tool calls, median of ${ROUNDS} rounds: plain ${plain.toFixed(0)} µs CPU a call in this process, ` +
    `with per-person policy and a limit ${people.toFixed(0)} µs (${people >= plain ? "+" : ""}${(((people - plain) / plain) * 100).toFixed(1)}%)${backendsToo}`,
);
await t.drop();
process.exit(0);
