/**
 * The server-action edge, from both sides: the role check (a viewer's call writes nothing), zod
 * paths at their fields, unstorable text refused before anything runs, AppError issues shown at
 * their fields, revalidation only after success, redirects outside the error handling, and an
 * unexpected failure logged and said plainly.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { z } from "zod";
import type { Principal } from "@/lib/platform/auth/roles";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { DEFAULT_PROJECT_ID } from "@/db/schema";

const revalidated: string[] = [];
let caller: Principal | undefined;
let testDb: TestDatabase;

vi.mock("next/cache", () => ({ revalidatePath: (path: string) => revalidated.push(path) }));
vi.mock("next/navigation", () => ({
  redirect: (to: string) => {
    throw Object.assign(new Error(`redirect ${to}`), { digest: `NEXT_REDIRECT;${to}` });
  },
}));
vi.mock("@/db/client", async (importOriginal) => ({ ...(await importOriginal<object>()), getDatabase: async () => testDb }));
vi.mock("@/lib/platform/auth/current-principal", async () => {
  const { AppError } = await import("@/lib/platform/api/app-error");
  const { roleAtLeast } = await import("@/lib/platform/auth/roles");
  return {
    requireActionRole: async (role: Principal["role"]) => {
      if (!caller) throw AppError.unauthorized("Your session has ended; sign in again.");
      if (!roleAtLeast(caller.role, role)) throw AppError.forbidden(`This needs the ${role} role; you are ${caller.role}.`);
      return caller;
    },
  };
});

const { action, formAction, readWithIssues } = await import("./action");
const { AppError } = await import("./app-error");
const { sql } = await import("drizzle-orm");

const operator: Principal = { kind: "user", id: "u-op", label: "ops@example.com", role: "operator", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: true };
const viewer: Principal = { ...operator, label: "viewer@example.com", role: "viewer" };

/** A real write, so "nothing written" is checked in the database, not in a mock. */
const saveNote = formAction(
  { role: "operator", input: z.object({ title: z.string().min(1, "give it a title"), size: z.coerce.number().int().max(10) }), revalidate: ["/notes"] },
  async ({ db, input }) => {
    await db.execute(sql`insert into action_notes (title) values (${input.title})`);
    if (input.size === 7) return { redirectTo: `/notes/${input.title}` };
    if (input.size === 8) throw new AppError("conflict", "that note exists", [{ path: "title", message: "taken" }]);
    if (input.size === 9) throw new Error("disk on fire");
    return { ok: true, message: `saved ${input.title}` };
  },
);
const toggle = action({ role: "admin", input: z.object({ on: z.boolean() }) }, async ({ input }) => ({ ok: true, message: `on=${input.on}` }));

function form(fields: Record<string, string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

async function notes(): Promise<string[]> {
  // PGlite answers {rows}, postgres.js an array of rows.
  const result = (await testDb.db.execute(sql`select title from action_notes order by id`)) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { title: string }[];
  return rows.map((r) => r.title);
}

beforeAll(async () => {
  testDb = await createTestDatabase();
  await testDb.db.execute(sql`create table action_notes (id serial primary key, title text not null)`);
});
afterAll(() => testDb.drop());
beforeEach(async () => {
  revalidated.length = 0;
  caller = operator;
  await testDb.db.execute(sql`delete from action_notes`);
});

describe("formAction", () => {
  test("an operator's valid form runs, writes once and revalidates its pages", async () => {
    expect(await saveNote({}, form({ title: "a", size: "1" }))).toEqual({ ok: true, message: "saved a" });
    expect(await notes()).toEqual(["a"]);
    expect(revalidated).toEqual(["/notes"]);
  });

  test("a viewer, or nobody, is refused with the reason and nothing is written", async () => {
    caller = viewer;
    expect(await saveNote({}, form({ title: "a", size: "1" }))).toEqual({ message: "This needs the operator role; you are viewer.", fieldErrors: {} });
    caller = undefined;
    expect((await saveNote({}, form({ title: "a", size: "1" }))).message).toBe("Your session has ended; sign in again.");
    expect(await notes()).toEqual([]);
    expect(revalidated).toEqual([]);
  });

  test("zod problems come back at their fields, every field named in the message", async () => {
    const state = await saveNote({}, form({ title: "", size: "99" }));
    expect(state.fieldErrors).toEqual({ title: "give it a title", size: expect.stringContaining("10") });
    expect(state.message).toBe("2 fields need a change: title, size");
    // One problem is said in full.
    expect((await saveNote({}, form({ title: "", size: "1" }))).message).toBe("title: give it a title");
    expect(await notes()).toEqual([]);
  });

  test("every problem of one field is kept, not only the first", async () => {
    const strict = formAction(
      { role: "operator", input: z.object({ name: z.string().min(3, "at least 3 characters").regex(/^[a-z]+$/, "lowercase letters only") }) },
      async () => ({ ok: true, message: "saved" }),
    );
    const state = await strict({}, form({ name: "A!" }));
    expect(state.fieldErrors).toEqual({ name: "at least 3 characters; lowercase letters only" });
    expect(state.message).toBe("name: at least 3 characters; lowercase letters only");
  });

  test("a field `read` could not read is refused together with the schema's problems of the others", async () => {
    const withJson = formAction(
      {
        role: "operator",
        input: z.object({ title: z.string().min(1, "give it a title"), data: z.array(z.number()).optional() }),
        read: (raw) => {
          const text = String((raw as FormData).get("data") ?? "");
          try {
            return { title: (raw as FormData).get("title"), data: text ? JSON.parse(text) : undefined };
          } catch {
            return readWithIssues({ title: (raw as FormData).get("title") }, [{ path: "data", message: "not JSON" }]);
          }
        },
      },
      async ({ db, input }) => {
        await db.execute(sql`insert into action_notes (title) values (${input.title})`);
        return { ok: true, message: "saved" };
      },
    );
    expect(await withJson({}, form({ title: "", data: "[1," }))).toEqual({
      message: "2 fields need a change: data, title",
      fieldErrors: { data: "not JSON", title: "give it a title" },
    });
    // Alone, the unreadable field still refuses the form: nothing is written.
    expect(await withJson({}, form({ title: "fine", data: "[1," }))).toEqual({ message: "data: not JSON", fieldErrors: { data: "not JSON" } });
    expect(await notes()).toEqual([]);
    expect(await withJson({}, form({ title: "fine", data: "[1]" }))).toEqual({ ok: true, message: "saved" });
    expect(await notes()).toEqual(["fine"]);
  });

  test("text the database cannot store is refused at its field, even in a field the schema ignores", async () => {
    const state = await saveNote({}, form({ title: "ok", size: "1", extra: "a\u0000b" }));
    expect(Object.keys(state.fieldErrors ?? {})).toEqual(["extra"]);
    expect(state.message).toMatch(/^extra: .*NUL/);
    expect(await notes()).toEqual([]);
  });

  test("an AppError is shown with its issues; an unexpected error is said plainly", async () => {
    expect(await saveNote({}, form({ title: "dup", size: "8" }))).toEqual({ message: "that note exists", fieldErrors: { title: "taken" } });
    expect(await saveNote({}, form({ title: "x", size: "9" }))).toEqual({ message: "Something went wrong on our side; it has been logged." });
    expect(revalidated).toEqual([]);
  });

  test("a redirect happens after revalidation, outside the error handling", async () => {
    await expect(saveNote({}, form({ title: "r", size: "7" }))).rejects.toMatchObject({ digest: "NEXT_REDIRECT;/notes/r" });
    expect(revalidated).toEqual(["/notes"]);
    expect(await notes()).toEqual(["r"]);
  });
});

describe("action (called with an object)", () => {
  test("checks the role and the input like a form", async () => {
    expect((await toggle({ on: true })).message).toBe("This needs the admin role; you are operator.");
    caller = { ...operator, role: "admin" };
    expect(await toggle({ on: true })).toEqual({ ok: true, message: "on=true" });
    expect((await toggle({ on: "yes" } as unknown as { on: boolean })).fieldErrors).toHaveProperty("on");
  });
});
