/**
 * Runs driven by an outside runtime (a Claude Code session through the bridge, any runtime through
 * /api/v1/ingest/events): no worker executes them; their events arrive over HTTP, one request per
 * hook call, possibly several at once for one session.
 */
import { and, eq, sql } from "drizzle-orm";
import { CHANNELS } from "@/lib/platform/stream/channels";
import type { Db } from "../client";
import { agents, runs } from "../schema";
import { agentRefMatch, type AgentRow } from "./agents";
import { createRun, getRunByExternalSession, setRunStatus, type RunRow } from "./runs";

/**
 * The project's agent a reference names (id or name) and its newest run for an outside session, in
 * one statement: every hook call of a session reads both. Undefined when the project has no such agent.
 */
export async function getAgentAndExternalRun(
  db: Db,
  params: { projectId: string; agentRef: string; externalSessionId: string },
): Promise<{ agent: AgentRow; run: RunRow | null } | undefined> {
  const [row] = await db
    .select({ agent: agents, run: runs })
    .from(agents)
    .leftJoin(runs, and(eq(runs.agentId, agents.id), eq(runs.externalSessionId, params.externalSessionId)))
    .where(and(eq(agents.projectId, params.projectId), agentRefMatch(params.agentRef)))
    .orderBy(sql`${runs.createdAt} desc nulls last`)
    .limit(1);
  return row;
}

/** Outcomes by which Hookplane itself stopped a session: it stays stopped until the session starts over. */
const STOPPED_BY_HOOKPLANE = new Set(["cancelled", "budget"]);

/**
 * The session's current run, or a new running one. A finished run is reused when Hookplane stopped
 * it (cancelled from the dashboard, over budget) and `keepStopped` is set, so the session stays
 * stopped until it starts over; with `reopen` (a session resumed or compacted after its run ended)
 * a run that ended otherwise is running again. A transaction-scoped advisory lock on (agent,
 * session) makes two concurrent first events of one session share one run instead of creating two.
 */
export async function getOrStartExternalRun(
  db: Db,
  params: {
    /** The agent's project (the session's token's). */
    projectId: string;
    agentId: string;
    externalSessionId: string;
    source: string;
    prompt: string;
    createdBy: string;
    keepStopped: boolean;
    reopen?: boolean;
    /** The session's newest run as already read (getAgentAndExternalRun; null: none), so it is not read again. */
    current?: RunRow | null;
  },
): Promise<{ run: RunRow; created: boolean }> {
  const stopped = (run: RunRow) => run.status === "finished" && STOPPED_BY_HOOKPLANE.has(run.outcome ?? "");
  const reusable = (run: RunRow | undefined): boolean => Boolean(run && (run.status !== "finished" || (params.keepStopped && stopped(run))));
  // Every hook call of a session lands here: the common case (the run exists) needs no lock.
  const current = params.current === undefined ? await getRunByExternalSession(db, params) : (params.current ?? undefined);
  if (current && reusable(current)) return { run: current, created: false };
  return db.transaction(async (tx) => {
    const key = `external-run:${params.agentId}:${params.externalSessionId}`;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
    const latest = await getRunByExternalSession(tx, params);
    if (latest && reusable(latest)) return { run: latest, created: false };
    if (latest && params.reopen && !stopped(latest)) {
      const [reopened] = await tx
        .update(runs)
        .set({ status: "running", outcome: null, reason: null, finishedAt: null })
        .where(eq(runs.id, latest.id))
        .returning();
      await tx.execute(sql`select pg_notify(${CHANNELS.runs}, ${JSON.stringify({ runId: latest.id })})`);
      return { run: reopened, created: false };
    }
    const created = await createRun(tx, {
      projectId: params.projectId,
      agentId: params.agentId,
      prompt: params.prompt,
      source: params.source,
      createdBy: params.createdBy,
      externalSessionId: params.externalSessionId,
    });
    await setRunStatus(tx, { id: created.id, status: "running" });
    const [run] = await tx.select().from(runs).where(eq(runs.id, created.id));
    return { run, created: true };
  });
}

/** Records a tool the session used (and whether a hook denied one), for the run list's filters. */
export async function noteExternalToolUse(db: Db, params: { id: string; toolName: string; blocked?: boolean }) {
  const tool = JSON.stringify([params.toolName]);
  await db
    .update(runs)
    .set({
      toolsUsed: sql`case when ${runs.toolsUsed} @> ${tool}::jsonb then ${runs.toolsUsed} else ${runs.toolsUsed} || ${tool}::jsonb end`,
      ...(params.blocked ? { blocked: true } : {}),
    })
    .where(eq(runs.id, params.id));
  await db.execute(sql`select pg_notify(${CHANNELS.runs}, ${JSON.stringify({ runId: params.id })})`);
}

/** Outside sessions still open whose last event (or start) is older than `idleMs`, in every project. */
export async function listIdleExternalRuns(db: Db, params: { idleMs: number }): Promise<RunRow[]> {
  const rows = await db
    .select()
    .from(runs)
    .where(
      sql`${runs.externalSessionId} is not null and ${runs.status} <> 'finished'
        and coalesce((select max(e.ts) from run_events e where e.run_id = "runs"."id"), "runs"."created_at")
          < now() - ${`${params.idleMs} milliseconds`}::interval`,
    )
    .limit(100);
  return rows;
}
