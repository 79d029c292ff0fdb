import { describe, expect, expectTypeOf, it } from "vitest";
import { columnsOf, fieldsOf } from "./null-fields";

describe("fieldsOf", () => {
  it("names the fields in order, a NULL one as undefined, falsy values kept", () => {
    const row = { id: "a", name: null as string | null, count: 0, on: false, note: "" };
    const fields = fieldsOf(row, ["note", "id", "name", "count", "on"]);
    expect(fields).toStrictEqual({ note: "", id: "a", name: undefined, count: 0, on: false });
    expect(Object.keys(fields)).toEqual(["note", "id", "name", "count", "on"]);
    expect(JSON.stringify(fields)).toBe('{"note":"","id":"a","count":0,"on":false}');
  });

  it("types a NULL column as an optional value and keeps every key named", () => {
    const row = {} as { id: string; name: string | null; agentName?: string | null };
    expectTypeOf(fieldsOf(row, ["id", "name", "agentName"])).toEqualTypeOf<{ id: string; name: string | undefined; agentName: string | undefined }>();
  });
});

describe("columnsOf", () => {
  it("names the columns in order, an undefined one as NULL, falsy values kept", () => {
    const value: { a?: string; b: number; c: boolean | undefined } = { b: 0, c: false };
    expect(columnsOf(value, ["c", "a", "b"])).toStrictEqual({ c: false, a: null, b: 0 });
  });

  it("types an optional field as a nullable column", () => {
    const value = {} as { a?: string; b: number };
    expectTypeOf(columnsOf(value, ["a", "b"])).toEqualTypeOf<{ a: string | null; b: number }>();
  });
});
