import { afterAll, beforeAll, expect, test } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { setupFirstAdmin } from "./account-service";
import type { Principal } from "./roles";
import { changeUserRoleAudited, createUserAudited } from "./user-service";

let t: TestDatabase;
let me: Principal;
let myId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  const { user } = await setupFirstAdmin(t.db, { email: "first@example.com", password: "long enough" });
  myId = user.id;
  me = { kind: "user", id: "session", label: user.email, role: "admin", userId: user.id };
});
afterAll(() => t.drop());

test("the last admin cannot give up the role; once another admin exists, they can", async () => {
  await expect(changeUserRoleAudited(t.db, me, { id: myId, role: "viewer" })).rejects.toMatchObject({
    status: 409,
    message: "You are the last admin: make another user admin before changing your own role.",
  });

  const other = await createUserAudited(t.db, me, { email: "second@example.com", password: "long enough", role: "viewer" });
  expect(await changeUserRoleAudited(t.db, me, { id: other.id, role: "admin" })).toMatchObject({ role: "admin" });
  expect(await changeUserRoleAudited(t.db, me, { id: myId, role: "operator" })).toMatchObject({ role: "operator" });

  // Now `second` is the only admin, and nobody can take it away from them either.
  await expect(changeUserRoleAudited(t.db, me, { id: other.id, role: "viewer" })).rejects.toMatchObject({
    status: 409,
    message: "second@example.com is the last admin: make another user admin first.",
  });

  const { rows } = await t.execute("select before, after from audit_log where action = 'user.role' order by id");
  expect(rows).toEqual([
    { before: { email: "second@example.com", role: "viewer" }, after: { email: "second@example.com", role: "admin" } },
    { before: { email: "first@example.com", role: "admin" }, after: { email: "first@example.com", role: "operator" } },
  ]);
});

test("an unknown user is a 404", async () => {
  await expect(changeUserRoleAudited(t.db, me, { id: "00000000-0000-4000-8000-000000000000", role: "viewer" })).rejects.toMatchObject({ status: 404 });
});
