import { eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { memoryNotes } from "../schema";

export async function readMemoryNote(db: Db, params: { name: string }) {
  const [row] = await db.select().from(memoryNotes).where(eq(memoryNotes.name, params.name));
  return row?.content;
}

export async function appendMemoryNote(db: Db, params: { name: string; text: string }) {
  await db
    .insert(memoryNotes)
    .values({ name: params.name, content: params.text })
    .onConflictDoUpdate({
      target: memoryNotes.name,
      set: { content: sql`${memoryNotes.content} || ${params.text}`, updatedAt: new Date() },
    });
}
