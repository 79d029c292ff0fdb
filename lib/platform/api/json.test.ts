import { expect, expectTypeOf, test } from "vitest";
import { toJson, type Json } from "./json";

test("a server value as the browser gets it: dates become ISO text, the rest keeps its shape and type", () => {
  const at = new Date("2026-11-29T10:00:00.000Z");
  const value = { at, when: null as Date | null, tags: ["a"], nested: { seen: [at] }, data: { x: 1 } as unknown, left: undefined as string | undefined };
  const json = toJson(value);
  expect(json).toEqual({ at: "2026-11-29T10:00:00.000Z", when: null, tags: ["a"], nested: { seen: ["2026-11-29T10:00:00.000Z"] }, data: { x: 1 } });
  expectTypeOf(json.at).toEqualTypeOf<string>();
  expectTypeOf(json.when).toEqualTypeOf<string | null>();
  expectTypeOf(json.nested.seen).toEqualTypeOf<string[]>();
  // A JSON column's value stays unknown (not never): the reader still has to look at it.
  expectTypeOf(json.data).toEqualTypeOf<unknown>();
  expectTypeOf<Json<{ a?: Date; r: Record<string, unknown> }>>().toEqualTypeOf<{ a?: string; r: Record<string, unknown> }>();
});
