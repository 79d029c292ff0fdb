import { afterAll, beforeAll, expect, test } from "vitest";
import { installDatabase } from "@/db/client";
import { seedPricesIfEmpty } from "@/db/queries/prices";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { callRoute } from "@/test/api-client";

import { PUBLISHED_PRICES } from "@/lib/features/costs/published-prices";
import * as route from "./route";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { addPerson, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";

let t: TestDatabase;
let admin: string;
let viewer: string;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  await seedPricesIfEmpty(t.db, { projectId: DEFAULT_PROJECT_ID, prices: PUBLISHED_PRICES });
  admin = (await addToken(t.db, { role: "admin", name: "setup", userId: (await addPerson(t.db, { email: "a@example.com", passwordHash: await hashPassword("long enough"), role: "admin", instanceAdmin: true })).id })).token;
  viewer = (await addToken(t.db, { name: "v", role: "viewer" })).token;
});
afterAll(() => t.drop());

const put = (token: string, body: unknown) => callRoute(route.PUT, { method: "PUT", token, body });
const good = { modelPattern: "^scripted$", inputUsdPerM: 1, outputUsdPerM: 2, cachedUsdPerM: 0.1, effectiveFrom: "2025-01-01T00:00:00Z" };

test("a pattern that is not a regex is a 422 naming the row and the field, and the table is untouched", async () => {
  const res = await put(admin, { items: [{ ...good, modelPattern: "^openai:(gpt-4" }, good] });
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe("validation_failed");
  expect(res.body.error.issues).toEqual([{ path: "items[0].modelPattern", message: expect.any(String) }]);
  expect((await callRoute(route.GET, { token: viewer })).body.items).toHaveLength(PUBLISHED_PRICES.length);
});

test("each bad field of each row is reported with its own path", async () => {
  const res = await put(admin, { items: [good, { ...good, inputUsdPerM: -1, outputUsdPerM: "2" }] });
  expect(res.status).toBe(422);
  expect(res.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(["items[1].inputUsdPerM", "items[1].outputUsdPerM"]);
});

test("an admin replaces the table and an audit row records before and after; a viewer may not", async () => {
  expect((await put(viewer, { items: [good] })).status).toBe(403);
  const res = await put(admin, { items: [good, { ...good, modelPattern: "^openai:gpt-4\\.1-mini$", inputUsdPerM: 0.4 }] });
  expect(res.status).toBe(200);
  expect(res.body.items.map((p: { modelPattern: string }) => p.modelPattern)).toEqual(["^openai:gpt-4\\.1-mini$", "^scripted$"]);
  const { rows } = await t.execute("select actor, jsonb_array_length(before) as before, jsonb_array_length(after) as after from audit_log where action = 'prices.replace'");
  expect(rows).toEqual([{ actor: "token:setup", before: PUBLISHED_PRICES.length, after: 2 }]);
});
