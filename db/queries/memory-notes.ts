import { eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { memoryNotes } from "../schema";
import { findInProject } from "./project-rows";

/** A project's note (each project has its own set: a run reads and writes its project's). */
export async function readMemoryNote(db: Db, params: { projectId: string; name: string }) {
  const row = await findInProject(db, memoryNotes, params.projectId, eq(memoryNotes.name, params.name));
  return row?.content;
}

export async function appendMemoryNote(db: Db, params: { projectId: string; name: string; text: string }) {
  await db
    .insert(memoryNotes)
    .values({ projectId: params.projectId, name: params.name, content: params.text })
    .onConflictDoUpdate({
      target: [memoryNotes.projectId, memoryNotes.name],
      set: { content: sql`${memoryNotes.content} || ${params.text}`, updatedAt: new Date() },
    });
}
