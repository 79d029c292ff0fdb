/**
 * A route's JSON body is refused when it holds text the database cannot store (a NUL, a lone
 * surrogate), wherever it is, and taken as it is otherwise: the values are walked only when the
 * text has a `\u` escape (the one way either can get in: route.ts, readJsonBody), so these
 * come from the side of the shortcut: raw bytes that are no UTF-8, escapes in values and keys,
 * deep in arrays, and a backslash that only looks like an escape.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { z } from "zod";
import { installDatabase } from "@/db/client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { apiRoute } from "./route";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
});
afterAll(async () => t?.drop());

const echo = apiRoute({ role: null, body: z.looseObject({}) }, async ({ body }) => ({ body }));

async function post(bytes: Buffer | string) {
  const response = await echo(new Request("http://localhost/api/v1/echo", { method: "POST", headers: { "content-type": "application/json" }, body: typeof bytes === "string" ? bytes : new Uint8Array(bytes) }));
  return { status: response.status, json: (await response.json()) as { body?: Record<string, unknown>; error?: { code: string; issues?: { path: string }[] } } };
}

test("raw bytes that are no UTF-8 (an encoded surrogate, a stray byte) arrive as U+FFFD and are stored as such", async () => {
  const bytes = Buffer.concat([Buffer.from('{"a":"x'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from("y"), Buffer.from([0xff]), Buffer.from('"}')]);
  const { status, json } = await post(bytes);
  expect(status).toBe(200);
  const a = json.body!.a as string;
  expect(a.startsWith("x\uFFFD")).toBe(true);
  expect(a.endsWith("y\uFFFD")).toBe(true);
  expect(/[\uD800-\uDFFF]/.test(a)).toBe(false);
});

test("a NUL or a lone surrogate written as an escape is refused (422) with its path, in a value, a key or deep in an array", async () => {
  for (const [text, path] of [
    ['{"a":"\\u0000"}', "a"],
    ['{"a":"ok","b":["x",{"c":"\\ud800"}]}', "b[1].c"],
    ['{"k\\u0000":"v"}', "k\u0000"],
    ['{"a":"\\uDC00 tail"}', "a"],
  ] as const) {
    const { status, json } = await post(text);
    expect(status, text).toBe(422);
    expect(json.error?.code, text).toBe("validation_failed");
    expect(json.error?.issues?.map((i) => i.path), text).toEqual([path]);
  }
});

test("a backslash before a u that escapes nothing, and a surrogate pair written as escapes, are taken as they are", async () => {
  const { status, json } = await post('{"path":"C:\\\\users\\\\u0000x","emoji":"\\ud83d\\ude00"}');
  expect(status).toBe(200);
  expect(json.body).toEqual({ path: "C:\\users\\u0000x", emoji: "😀" });
});
