/**
 * An API token's "last used" stamp: written by the requests that use it, but at most once a
 * minute, since a coding agent's hook bridge presents its token before every tool call (and the
 * token row itself is read again at most every CREDENTIAL_TTL_MS: db/queries/token-cache.ts).
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { createApiToken } from "@/db/queries/api-tokens";
import { apiTokens, DEFAULT_PROJECT_ID } from "@/db/schema";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { principalFromHeaders } from "./principal";
import { hashSecretToken, newSecretToken } from "./secret-token";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  vi.useRealTimers();
  await t.drop();
});

test("a token's use is stamped when it was never used or not in the last minute; not on every request", async () => {
  const secret = newSecretToken("hp_");
  const row = (await createApiToken(t.db, { projectId: DEFAULT_PROJECT_ID, name: "bridge", tokenHash: hashSecretToken(secret), prefix: secret.slice(0, 8), role: "operator" }))!;
  const headers = new Headers({ authorization: `Bearer ${secret}` });
  const lastUsed = async () => (await t.db.select({ at: apiTokens.lastUsedAt }).from(apiTokens).where(eq(apiTokens.id, row.id)))[0].at;
  const setLastUsed = (at: Date) => t.db.update(apiTokens).set({ lastUsedAt: at }).where(eq(apiTokens.id, row.id));

  expect(await principalFromHeaders(t.db, headers)).toMatchObject({ kind: "token", id: row.id, role: "operator" });
  await expect.poll(lastUsed).not.toBeNull();

  const recently = new Date(Date.now() - 30_000);
  await setLastUsed(recently);
  await principalFromHeaders(t.db, headers);
  await principalFromHeaders(t.db, headers);
  expect(await lastUsed()).toEqual(recently);

  // A minute later (past the cache's bound too), the row is read again and the use stamped again.
  const stamped = (await lastUsed())!;
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 61_000 });
  await principalFromHeaders(t.db, headers);
  await expect.poll(async () => (await lastUsed())!.getTime() - stamped.getTime()).toBeGreaterThanOrEqual(61_000);
});
