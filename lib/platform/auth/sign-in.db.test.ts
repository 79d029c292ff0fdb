import { afterAll, beforeAll, expect, test } from "vitest";
import { getSessionUser } from "@/db/queries/sessions";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { AppError } from "@/lib/platform/api/app-error";
import { setupFirstAdmin, signIn, signOut } from "./account-service";
import { principalFromHeaders } from "./principal";
import { hashSecretToken } from "./secret-token";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  await setupFirstAdmin(t.db, { email: "ops@example.com", password: "right password" });
});
afterAll(async () => {
  await t.drop();
});

test("a session cookie identifies the user until sign-out", async () => {
  const { sessionToken } = await signIn(t.db, { email: "OPS@example.com", password: "right password", address: "192.0.2.1" });
  const headers = new Headers({ cookie: `other=1; hp_session=${sessionToken}` });
  expect(await principalFromHeaders(t.db, headers)).toMatchObject({ kind: "user", label: "ops@example.com", role: "admin" });
  await signOut(t.db, sessionToken);
  expect(await getSessionUser(t.db, { tokenHash: hashSecretToken(sessionToken) })).toBeUndefined();
  expect(await principalFromHeaders(t.db, headers)).toBeUndefined();
});

test("repeated failed sign-ins from one address are slowed down, even with the right password", async () => {
  const attempt = (password: string) =>
    signIn(t.db, { email: "ops@example.com", password, address: "192.0.2.2" }).then(
      () => "ok",
      (e: AppError) => e.status,
    );
  for (let i = 0; i < 5; i++) expect(await attempt("wrong password")).toBe(401);
  // The fifth failure starts a lock; while it lasts even the right password is refused with 429.
  expect(await attempt("right password")).toBe(429);
  expect(await attempt("wrong password")).toBe(429);
  await t.execute("update sign_in_failures set last_failure_at = now() - interval '1 hour', locked_until = now() - interval '1 second'");
  expect(await attempt("right password")).toBe("ok");
  // Success clears the record.
  expect(await attempt("wrong password")).toBe(401);
  expect(await attempt("right password")).toBe("ok");
});

test("the setup form's first admin has no API token; the API's setup answers with the one it made", async () => {
  const form = await createTestDatabase();
  const api = await createTestDatabase();
  try {
    const made = await setupFirstAdmin(form.db, { email: "form@example.com", password: "right password" }, { apiToken: false });
    expect(made).toEqual({ user: { id: expect.any(String), email: "form@example.com", role: "admin", instanceAdmin: true } });
    expect((await form.execute("select count(*)::int as n from api_tokens")).rows).toEqual([{ n: 0 }]);
    expect((await form.execute("select action from audit_log order by id")).rows).toEqual([{ action: "setup" }]);

    const { token, user } = await setupFirstAdmin(api.db, { email: "api@example.com", password: "right password" });
    expect(token).toMatch(/^hp_/);
    expect((await api.execute("select name, role, user_id from api_tokens")).rows).toEqual([{ name: "setup", role: "admin", user_id: user.id }]);
  } finally {
    await form.drop();
    await api.drop();
  }
});
