import { z } from "zod";
import { describe, expect, test } from "vitest";
import { cursorSchema, encodeCursor } from "../platform/api/cursor";
import { jsonDepthExceeds, MAX_JSON_DEPTH, pgDateSchema, pgIntSchema, unsafeInputIssues, unsafeTextReason, uuidSchema } from "./safe-input";

describe("text the database cannot store", () => {
  test("NUL and lone surrogates are named; paired surrogates and ordinary text are fine", () => {
    expect(unsafeTextReason("a\u0000b")).toMatch(/NUL/);
    expect(unsafeTextReason("\uD800")).toMatch(/surrogate/);
    expect(unsafeTextReason("x\uDC00")).toMatch(/surrogate/);
    expect(unsafeTextReason("\uD83D\uDE00 ok")).toBeUndefined();
    expect(unsafeTextReason("plain, 'quoted' and ../dots")).toBeUndefined();
  });

  test("every bad string and key is reported at its path", () => {
    const issues = unsafeInputIssues({ name: "ok", script: [{ toolCalls: [{ name: "a\u0000" }] }], ["k\uD800"]: 1 });
    expect(issues.map((i) => i.path)).toEqual(["script[0].toolCalls[0].name", "k\uD800"]);
    const form = new FormData();
    form.append("prompt", "p\u0000");
    expect(unsafeInputIssues(form).map((i) => i.path)).toEqual(["prompt"]);
  });

  test("depth is limited before parsing, and strings with brackets do not count", () => {
    expect(jsonDepthExceeds("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonDepthExceeds("[".repeat(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonDepthExceeds(JSON.stringify({ text: "[".repeat(1000) + '\\"{' }))).toBe(false);
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH + 5; i++) deep = [deep];
    expect(unsafeInputIssues(deep)[0].message).toMatch(/nested deeper/);
  });
});

describe("shared building blocks", () => {
  test("dates stay within years 1 to 9999", () => {
    expect(pgDateSchema.safeParse("2025-01-31").success).toBe(true);
    for (const bad of ["99999-01-01", "-000001-01-01", "yesterday", "", "275760-09-13"]) expect(pgDateSchema.safeParse(bad).success, bad).toBe(false);
  });

  test("integers fit PostgreSQL's integer, ids are UUIDs", () => {
    expect(pgIntSchema.safeParse(2 ** 31 - 1).success).toBe(true);
    expect(pgIntSchema.safeParse(2 ** 31).success).toBe(false);
    expect(uuidSchema.safeParse("00000000-0000-4000-8000-000000000000").success).toBe(true);
    expect(uuidSchema.safeParse("../../etc/passwd").success).toBe(false);
  });

  test("a cursor decodes to exactly its list's key, or is refused", () => {
    const schema = cursorSchema(z.object({ id: z.number().int() }).strict());
    expect(schema.parse(encodeCursor({ id: 7 }))).toEqual({ id: 7 });
    for (const forged of ["garbage", encodeCursor({ id: "7; drop" }), encodeCursor({ id: 7, extra: 1 }), encodeCursor([7]), "a".repeat(3000)]) {
      expect(schema.safeParse(forged).success, forged.slice(0, 20)).toBe(false);
    }
  });
});
