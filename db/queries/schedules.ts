import { and, asc, eq, isNotNull, lte } from "drizzle-orm";
import type { Db } from "../client";
import { schedules } from "../schema";
import { deleteInProject, findInProject } from "./project-rows";

/** The project's schedule; undefined for another project's (the caller answers 404). */
export async function getSchedule(db: Db, params: { projectId: string; id: string }) {
  return findInProject(db, schedules, params.projectId, eq(schedules.id, params.id));
}

/** Just what names a schedule in a scope picker: id, name and its agent. */
export async function listScheduleSummaries(db: Db, params: { projectId: string }) {
  return db
    .select({ id: schedules.id, name: schedules.name, agentId: schedules.agentId })
    .from(schedules)
    .where(eq(schedules.projectId, params.projectId))
    .orderBy(asc(schedules.createdAt));
}

export type ScheduleRow = typeof schedules.$inferSelect;

export async function listSchedules(db: Db, params: { projectId: string }) {
  return db.select().from(schedules).where(eq(schedules.projectId, params.projectId)).orderBy(asc(schedules.createdAt));
}

/** `agentId` must be an agent of `projectId`, as the caller read it (findAgentOr404). */
export async function createSchedule(db: Db, params: typeof schedules.$inferInsert) {
  const [row] = await db.insert(schedules).values(params).returning();
  return row;
}

export async function deleteSchedule(db: Db, params: { projectId: string; id: string }) {
  return deleteInProject(db, schedules, params.projectId, eq(schedules.id, params.id));
}

/** Enabled schedules whose time has come, in every project (the scheduler fires each in its own). */
export async function listDueSchedules(db: Db, params: { now: Date }) {
  return db
    .select()
    .from(schedules)
    .where(and(eq(schedules.enabled, true), isNotNull(schedules.nextRunAt), lte(schedules.nextRunAt, params.now)));
}

/**
 * Moves a due schedule to its next time; only one process wins a given firing (the update
 * matches the time it read), so a schedule fires once however many processes sweep.
 */
export async function claimScheduleFiring(db: Db, params: { id: string; dueAt: Date; nextRunAt: Date | null; firedAt: Date }) {
  const [row] = await db
    .update(schedules)
    .set({ nextRunAt: params.nextRunAt, lastRunAt: params.firedAt })
    .where(and(eq(schedules.id, params.id), eq(schedules.nextRunAt, params.dueAt)))
    .returning();
  return row;
}

/** The response of the schedule's run (the executor, which has the run's schedule id). */
export async function recordScheduleResponse(db: Db, params: { id: string; response: string | null }) {
  await db.update(schedules).set({ lastResponse: params.response }).where(eq(schedules.id, params.id));
}

/** Replaces a schedule's configured fields (the config importer's `onConflict: "update"`); its project stays. */
export async function updateSchedule(db: Db, params: { projectId: string; id: string; values: Partial<Omit<typeof schedules.$inferInsert, "projectId">> }) {
  const [row] = await db
    .update(schedules)
    .set(params.values)
    .where(and(eq(schedules.projectId, params.projectId), eq(schedules.id, params.id)))
    .returning();
  return row;
}
