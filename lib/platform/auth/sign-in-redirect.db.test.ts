/**
 * Where signing in sends the browser, on the real server (test/real-server.ts): the password
 * sign-in action called with the raw `next` an attacker puts in the form (its `x-action-redirect`),
 * the sign-in page's form and single sign-on links, and the device page's way through sign-in and
 * back. Issue 30: `/..//evil.example/x` and its kin resolved to `//evil.example/x`, another origin.
 * Needs `npm run build` first.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { callFormAction, startRealServer, type RealServer } from "@/test/real-server";

const ADMIN = { email: "admin@example.com", password: "correct horse battery" };
/** Each resolves, one way or another, to another origin. */
const HOSTILE = [
  "/..//evil.example/x",
  "/.//evil.example/x",
  "/%2e%2e//evil.example/x",
  "/.%2e/%2e%2e//evil.example",
  "/%2f/evil.example",
  "/%5c/evil.example",
  "/\\evil.example",
  "/%09/evil.example",
  "/\t/evil.example",
  "////evil.example",
  "//evil.example",
  "https://evil.example",
  "javascript:alert(1)",
  `/${"a".repeat(5000)}`,
];

let server: RealServer;

beforeAll(async () => {
  server = await startRealServer();
  const setup = await fetch(`${server.base}/api/v1/setup`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(ADMIN) });
  expect(setup.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** Where the action's answer sends the browser, and whether it opened a session. */
async function signInWithNext(next: string) {
  const answer = await callFormAction(server, "/sign-in", "signInAction", { ...ADMIN, next });
  await answer.arrayBuffer();
  return { status: answer.status, redirect: answer.headers.get("x-action-redirect")?.split(";")[0], session: answer.headers.getSetCookie().some((c) => c.startsWith("hp_session=")) };
}

test("the sign-in action with a hostile next signs in and goes to the dashboard's home; a path of ours is kept", async () => {
  for (const next of HOSTILE) expect({ next: next.slice(0, 40), ...(await signInWithNext(next)) }).toEqual({ next: next.slice(0, 40), status: 200, redirect: "/", session: true });
  expect(await signInWithNext("/runs?status=finished")).toEqual({ status: 200, redirect: "/runs?status=finished", session: true });
  expect(await signInWithNext("/device?code=ABCD-EFGH")).toEqual({ status: 200, redirect: "/device?code=ABCD-EFGH", session: true });
}, 60_000);

test("the sign-in page carries only a path of ours into its form", async () => {
  for (const next of HOSTILE.slice(0, -1)) {
    const page = await fetch(`${server.base}/sign-in?next=${encodeURIComponent(next)}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    // (The page's own address, with the hostile next, is in its payload; the form carries only ours.)
    expect(html.match(/name="next" value="[^"]*"/g), next).toEqual(['name="next" value="/"']);
  }
  const kept = await (await fetch(`${server.base}/sign-in?next=${encodeURIComponent("/hooks/a/../b")}`)).text();
  expect(kept).toContain('name="next" value="/hooks/b"');
});

test("the device page sends a signed-out visitor through sign-in and back to its code", async () => {
  const answer = await fetch(`${server.base}/device?code=ABCD-EFGH`, { redirect: "manual" });
  expect(answer.status).toBe(307);
  expect(answer.headers.get("location")).toBe("/sign-in?next=%2Fdevice%3Fcode%3DABCD-EFGH");
});

test("a signed-out visitor of a page (a link from a notice) is sent to sign in with that page as next; a path header a client sends is not believed", async () => {
  const runId = "00000000-0000-4000-8000-000000000123";
  for (const [path, next] of [
    [`/runs/${runId}`, `/runs/${runId}`],
    ["/approvals?status=pending", "/approvals?status=pending"],
    ["/hooks", "/hooks"],
  ]) {
    const page = await fetch(`${server.base}${path}`, { redirect: "manual" });
    expect([path, page.status, page.headers.get("location")]).toEqual([path, 307, `/sign-in?next=${encodeURIComponent(next)}`]);
    await page.arrayBuffer();
  }
  const spoofed = await fetch(`${server.base}/hooks`, { redirect: "manual", headers: { "x-hookplane-request-path": "//evil.example/x" } });
  expect(spoofed.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent("/hooks")}`);
  await spoofed.arrayBuffer();
  // Signing in from there comes back to the page.
  expect(await signInWithNext(`/runs/${runId}`)).toEqual({ status: 200, redirect: `/runs/${runId}`, session: true });
}, 60_000);
