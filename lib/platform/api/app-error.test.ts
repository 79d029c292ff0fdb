import { z } from "zod";
import { expect, test } from "vitest";
import { decodeCursor, encodeCursor, paginate } from "./cursor";
import { issuePath } from "@/lib/core/issues";
import { validationError } from "./app-error";

test("issue paths read like the JSON they point into", () => {
  expect(issuePath(["script", 0, "toolCalls", 1, "name"])).toBe("script[0].toolCalls[1].name");
  expect(issuePath([])).toBe("(root)");
});

test("a zod failure becomes a 422 whose message names the first field", async () => {
  const schema = z.object({ name: z.string(), maxTurns: z.number() });
  const result = schema.safeParse({ name: 1, maxTurns: "x" });
  if (result.success) throw new Error("expected failure");
  const error = validationError(result.error);
  expect(error.status).toBe(422);
  expect(error.message).toMatch(/^name: /);
  const body = await error.toResponse().json();
  expect(body.error.issues.map((i: { path: string }) => i.path)).toEqual(["name", "maxTurns"]);
});

test("cursors round-trip and a garbled one is ignored", () => {
  expect(decodeCursor(encodeCursor({ name: "b" }))).toEqual({ name: "b" });
  expect(decodeCursor("%%%")).toBeUndefined();
  const page = paginate([1, 2, 3], 2, (n) => n);
  expect(page.items).toEqual([1, 2]);
  expect(decodeCursor(page.nextCursor)).toBe(2);
  expect(paginate([1], 2, (n) => n).nextCursor).toBeNull();
});
