/**
 * The read-back of npm run bench:ingest (bench/ingest.ts): after each level, every session must be
 * exactly one finished run with gapless seqs, the events its hooks map to, and one ledger row of
 * the guard per tool.pre. Read from the tables on PostgreSQL, through the API on PGlite.
 */
import path from "node:path";
import type postgres from "postgres";
import { AGENT, GUARD_ID } from "./ingest-config";
import { api } from "./ingest-servers";
import { expectedEvents, type SessionPlan } from "./ingest-sessions";

interface RecordedRun {
  id: string;
  /** The Claude Code session the run records, as far as the source can tell. */
  sessionId: string | undefined;
  status: string;
  outcome: string | null;
  events: { seq: number; type: string; data: Record<string, unknown> }[];
  ledger: { hookKey: string; event: string; eventSeq: number | null; matched: boolean; verdict: string | null }[];
}

export interface RunSource {
  /** The runs of the bench agent not returned before (so a level's, whatever made them). */
  newRuns(): Promise<RecordedRun[]>;
}

function byRun<T extends { runId: string }>(rows: readonly T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const list = map.get(row.runId);
    if (list) list.push(row);
    else map.set(row.runId, [row]);
  }
  return map;
}

/** PostgreSQL: the tables themselves. */
export function sqlSource(sql: postgres.Sql, agent = AGENT): RunSource {
  const seen = new Set<string>();
  return {
    async newRuns() {
      const all = await sql<{ id: string; externalSessionId: string | null; status: string; outcome: string | null }[]>`
        select r.id, r.external_session_id as "externalSessionId", r.status, r.outcome
          from runs r join agents a on a.id = r.agent_id
         where a.name = ${agent}`;
      const rows = all.filter((r) => !seen.has(r.id));
      if (rows.length === 0) return [];
      for (const r of rows) seen.add(r.id);
      const ids = rows.map((r) => r.id);
      const events = await sql<{ runId: string; seq: number; type: string; data: Record<string, unknown> }[]>`
        select run_id as "runId", seq, type, data from run_events where run_id in ${sql(ids)} order by run_id, seq`;
      const ledger = await sql<({ runId: string } & RecordedRun["ledger"][number])[]>`
        select run_id as "runId", hook_key as "hookKey", event, event_seq as "eventSeq", matched, verdict
          from hook_invocations where run_id in ${sql(ids)} order by id`;
      const eventsOf = byRun(events);
      const ledgerOf = byRun(ledger);
      return rows.map((r) => ({
        id: r.id,
        sessionId: r.externalSessionId ?? undefined,
        status: r.status,
        outcome: r.outcome,
        events: eventsOf.get(r.id) ?? [],
        ledger: ledgerOf.get(r.id) ?? [],
      }));
    },
  };
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const work = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, work));
  return out;
}

/**
 * PGlite: the API, as an admin (the server holds the data folder, no other process may open it).
 * The API does not show a run's external session id: a run's session is read from its
 * session.start, whose claudeCode.transcript_path names it (planSession).
 */
export function apiSource(base: string, token: string, agent = AGENT): RunSource {
  const seen = new Set<string>();
  const get = <T>(route: string) => api<T>(base, "GET", route, token);
  return {
    async newRuns() {
      type RunItem = { id: string; status: string; outcome?: string };
      const rows: RunItem[] = [];
      let cursor: string | null = null;
      do {
        const page: { items: RunItem[]; nextCursor: string | null } = await get(`/api/v1/runs?agent=${agent}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        rows.push(...page.items.filter((r) => !seen.has(r.id)));
        cursor = page.nextCursor;
      } while (cursor);
      for (const r of rows) seen.add(r.id);
      return mapLimit(rows, 8, async (r): Promise<RecordedRun> => {
        const events: RecordedRun["events"] = [];
        for (let after: number | null = 0; after !== null; ) {
          const page: { items: RecordedRun["events"]; nextAfter: number | null } = await get(`/api/v1/runs/${r.id}/events?after=${after}&limit=1000`);
          events.push(...page.items);
          after = page.nextAfter;
        }
        const { items: ledger } = await get<{ items: RecordedRun["ledger"] }>(`/api/v1/runs/${r.id}/hooks`);
        const start = events.find((e) => e.type === "session.start")?.data.claudeCode as { transcript_path?: string } | undefined;
        return {
          id: r.id,
          sessionId: start?.transcript_path ? path.basename(start.transcript_path, ".jsonl") : undefined,
          status: r.status,
          outcome: r.outcome ?? null,
          events,
          ledger,
        };
      });
    },
  };
}

/** "session.start ×1, tool.pre ×20, ...", in the order of `order` (then any other type). */
function countTypes(types: string[], order: string[]): string {
  const counts = new Map<string, number>(order.map((t) => [t, 0]));
  for (const t of types) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts].map(([t, n]) => `${t} ×${n}`).join(", ");
}

function checkRun(plan: SessionPlan, run: RecordedRun): string[] {
  const problems: string[] = [];
  const where = `${plan.id} (run ${run.id})`;
  if (run.status !== "finished" || run.outcome !== "completed") problems.push(`${where}: ${run.status}/${run.outcome}, expected finished/completed`);
  const gap = run.events.findIndex((e, i) => e.seq !== i + 1);
  if (gap >= 0) problems.push(`${where}: seqs not gapless from 1 (position ${gap + 1} holds seq ${run.events[gap].seq})`);
  const expected = expectedEvents(plan);
  const got = run.events.map((e) => e.type);
  if (got.join() !== expected.join()) {
    const at = Array.from({ length: Math.max(got.length, expected.length) }, (_, i) => i).find((i) => got[i] !== expected[i])!;
    const [gotCounts, expectedCounts] = [countTypes(got, expected), countTypes(expected, expected)];
    const first = `#${at + 1} is ${got[at] ?? "missing"}, expected ${expected[at] ?? "nothing"}`;
    problems.push(`${where}: ${gotCounts === expectedCounts ? `the events it should, out of order: ${first}` : `events ${gotCounts}; expected ${expectedCounts} (${first})`}`);
  }
  // The guard's ledger: one row per tool.pre, on that event's seq, a block exactly where the command asked for /srv/prod.
  const toolPres = new Map(run.events.filter((e) => e.type === "tool.pre").map((e) => [e.seq, e]));
  const guardRows = run.ledger.filter((r) => r.hookKey === GUARD_ID);
  const covered = new Set<number>();
  let blocks = 0;
  for (const row of guardRows) {
    const event = row.eventSeq === null ? undefined : toolPres.get(row.eventSeq);
    if (!event || row.event !== "tool.pre" || covered.has(row.eventSeq!)) {
      problems.push(`${where}: a ledger row of ${GUARD_ID} on ${row.event} seq ${row.eventSeq}, not on a tool.pre of its own`);
      continue;
    }
    covered.add(row.eventSeq!);
    const asksForProd = JSON.stringify(event.data.toolInput ?? {}).includes("/srv/prod");
    if (row.verdict === "block") blocks++;
    if (!row.matched || (row.verdict === "block") !== asksForProd) {
      problems.push(`${where}: ${GUARD_ID} on seq ${row.eventSeq} ${row.matched ? row.verdict : "did not match"}, expected ${asksForProd ? "block" : "allow"}`);
    }
  }
  if (guardRows.length !== plan.toolCalls) problems.push(`${where}: ${guardRows.length} ledger rows of ${GUARD_ID}, expected ${plan.toolCalls} (one per tool.pre)`);
  if (blocks !== plan.denied) problems.push(`${where}: ${blocks} blocks in the ledger, expected ${plan.denied}`);
  return problems;
}

/** Every planned session is exactly one run holding what it sent, and no other run appeared. */
export async function verifyLevel(source: RunSource, plans: SessionPlan[]): Promise<{ problems: string[]; runs: number; events: number }> {
  const runs = await source.newRuns();
  const problems: string[] = [];
  const bySession = new Map<string, RecordedRun[]>(plans.map((p) => [p.id, []]));
  for (const run of runs) {
    const mine = run.sessionId === undefined ? undefined : bySession.get(run.sessionId);
    if (mine) mine.push(run);
    else problems.push(`run ${run.id}: not a session of this level (${run.sessionId ?? "no session found"})`);
  }
  for (const plan of plans) {
    const found = bySession.get(plan.id)!;
    if (found.length !== 1) problems.push(`${plan.id}: ${found.length} runs, expected 1`);
    else problems.push(...checkRun(plan, found[0]));
  }
  return { problems, runs: runs.length, events: runs.reduce((n, r) => n + r.events.length, 0) };
}
