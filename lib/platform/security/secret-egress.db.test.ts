/**
 * Where secrets and outbound requests may go (issue 17, items 2 and 3), tried as an operator would
 * attack: every test here failed before the outbound guard and secret hosts existed.
 *
 * Listeners are on loopback only. The suite names 127.0.0.1 in the admin's allow-list
 * (HOOKPLANE_ALLOW_PRIVATE_HOSTS) explicitly; the loopback test takes it away. Private addresses
 * (10.0.0.1, 169.254.169.254, ...) are never contacted: the guard must refuse before connecting,
 * which the tests check by the time a refusal takes.
 */
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import * as configImportRoute from "@/app/api/v1/config/import/route";
import * as hookRoute from "@/app/api/v1/hooks/[id]/route";
import * as hooksRoute from "@/app/api/v1/hooks/route";
import * as hookTestRoute from "@/app/api/v1/hooks/test/route";
import * as secretRoute from "@/app/api/v1/secrets/[name]/route";
import { callRoute } from "@/test/api-client";
import { issueApiToken } from "@/lib/platform/auth/account-service";
import type { Principal } from "@/lib/platform/auth/roles";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { json, startServer, type LocalServer } from "@/lib/core/hooks/testing/fakes";
import { createRunHookRuntime } from "@/lib/features/hooks/hook-runtime-factory";
import { startRun } from "@/lib/features/runs/run-service";
import { addAgent, createRunHarness, operator as operatorPrincipal, runEvents, waitForRun, type RunHarness } from "@/test/run-harness";
import { forgetSecretBox } from "@/lib/platform/security/instance-secret-box";
import { setEnv } from "@/test/config-env";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { addPerson, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";

// The editor's server action, called as the browser would: only Next's request plumbing is replaced.
vi.mock("next/cache", () => ({ revalidatePath: () => {} }));
vi.mock("next/navigation", () => ({
  redirect: (to: string) => {
    throw Object.assign(new Error(`redirect ${to}`), { digest: `NEXT_REDIRECT;${to}` });
  },
}));
vi.mock("@/lib/platform/auth/current-principal", () => ({
  requireActionRole: async (): Promise<Principal> => ({ kind: "user", id: "u-op", label: "ops@example.com", role: "operator", projectId: DEFAULT_PROJECT_ID, projectSlug: "default", instanceAdmin: false }),
}));
const { saveHookAction } = await import("@/lib/features/hooks/hook-actions");

/** Upper and lower case, base64 `+` and `/`, URL-special characters: every encoding differs from the value. */
const DB_PASSWORD = "Db+Pass/Word=42?&Zz~";
const ECHO_TOKEN = "Echo+Tok/En=77?&Qq~";

let h: RunHarness;
let admin: string;
let operator: string;
/** Records every request and answers 200 {}. */
let listener: LocalServer;
/** Answers with the `x-token` header it got, in every encoding, as a deny reason and as context. */
let echo: LocalServer;
const env = { ...process.env };

function forms(value: string): Record<string, string> {
  const bytes = Buffer.from(value, "utf8");
  return {
    exact: value,
    upper: value.toUpperCase(),
    lower: value.toLowerCase(),
    base64: bytes.toString("base64"),
    base64url: bytes.toString("base64url"),
    hex: bytes.toString("hex"),
    HEX: bytes.toString("hex").toUpperCase(),
    url: encodeURIComponent(value),
    form: new URLSearchParams({ v: value }).toString().slice(2),
    // Inside a longer encoded text, at another byte alignment.
    bearerBase64: Buffer.from(`Bearer ${value}`, "utf8").toString("base64"),
  };
}

function expectNoForm(text: string, value: string) {
  for (const [name, form] of Object.entries(forms(value))) {
    expect(text.includes(form), `the ${name} form of the secret (${form}) leaked`).toBe(false);
  }
  expect(text.toLowerCase().includes(value.toLowerCase()), "a case-folded copy of the secret leaked").toBe(false);
}

beforeAll(async () => {
  setEnv({ HOOKPLANE_SECRET_KEY: randomBytes(32).toString("base64") });
  setEnv({ HOOKPLANE_ALLOW_PRIVATE_HOSTS: "127.0.0.1" });
  forgetSecretBox();
  h = await createRunHarness();
  admin = (await addToken(h.t.db, { role: "admin", name: "setup", userId: (await addPerson(h.t.db, { email: "admin@example.com", instanceAdmin: true, passwordHash: await hashPassword("long enough") })).id })).token;
  operator = (await addToken(h.t.db, { role: "operator", name: "ops" })).token;
  // Answers as Slack does (`ok: true`); a Slack answer without it counts as a failed notice.
  listener = await startServer((_req, res) => json(res, 200, { ok: true }));
  echo = await startServer((req, res) => {
    const got = String(req.headers["x-token"] ?? "");
    const f = forms(got);
    const text = Object.entries(f)
      .map(([name, form]) => `${name}=${form}`)
      .join(" ");
    json(res, 200, { hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: `echo ${text}`, additionalContext: `context ${text}` }, headers: req.headers });
  });
  await putSecret("DB_PASSWORD", DB_PASSWORD, ["db.internal.example"]);
  await putSecret("ECHO_TOKEN", ECHO_TOKEN, ["127.0.0.1"]);
});
afterEach(() => {
  listener.requests.length = 0;
  echo.requests.length = 0;
  setEnv({ HOOKPLANE_ALLOW_PRIVATE_HOSTS: "127.0.0.1" });
  setEnv({ HOOKPLANE_SLACK_BASE_URL: undefined });
});
afterAll(async () => {
  await listener.close();
  await echo.close();
  await h.close();
  for (const key of ["HOOKPLANE_SECRET_KEY", "HOOKPLANE_ALLOW_PRIVATE_HOSTS", "HOOKPLANE_SLACK_BASE_URL"]) {
    setEnv({ [key]: env[key] });
  }
  forgetSecretBox();
});

async function putSecret(name: string, value: string, hosts: string[]) {
  const res = await callRoute(secretRoute.PUT, { method: "PUT", token: admin, params: { name }, body: { value, hosts } });
  expect(res.status).toBeLessThan(300);
}

const trial = (hook: Record<string, unknown>, event: Record<string, unknown> = { type: "tool.pre", toolName: "x", toolInput: {} }) =>
  callRoute(hookTestRoute.POST, { method: "POST", token: operator, body: { hook, event } });
const saveHook = (body: unknown) => callRoute(hooksRoute.POST, { method: "POST", token: operator, body });
const webhook = (url: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) => ({
  id: "attack",
  event: "tool.pre",
  action: { type: "webhook", url, headers, timeoutMs: 3_000 },
  ...extra,
});

describe("a secret goes only to its own hosts", () => {
  test("a header naming a secret whose hosts exclude the listener is refused, and nothing is sent", async () => {
    const res = await trial(webhook(`${listener.url}/collect`, { "x-leak": "${secret:DB_PASSWORD}" }));
    expect(res.status).toBe(200);
    expect(res.body.ledger[0]).toMatchObject({
      matched: true,
      failed: true,
      reason: "secret DB_PASSWORD may not be sent to 127.0.0.1: its hosts, set by an admin with the secret, do not include it",
    });
    expect(res.body.verdict).toBe("block");
    expect(listener.requests).toEqual([]);
    expectNoForm(JSON.stringify(res.body), DB_PASSWORD);

    // The same hook saved through the API (a header is a credential field) and fired in a run.
    const saved = await saveHook({ ...webhook(`${listener.url}/collect`, { "x-leak": "${secret:DB_PASSWORD}" }), id: "stored-leak", event: "session.end" });
    expect(saved.status).toBe(201);
    const runtime = createRunHookRuntime({ db: h.t.db, projectId: DEFAULT_PROJECT_ID, persistLedger: false });
    const fired = await runtime.dispatch([hookSpecSchema.parse(saved.body.spec)], {
      type: "session.end",
      runId: "r",
      agentName: "a",
      ts: Date.now(),
      data: { outcome: "completed" },
    });
    expect(fired.ledger[0]).toMatchObject({ failed: true, reason: expect.stringContaining("secret DB_PASSWORD may not be sent to 127.0.0.1") });
    expect(listener.requests).toEqual([]);
  });

  test("a header or URL userinfo naming a secret that lists the host is sent there", async () => {
    const res = await trial(webhook(`http://bot:\${secret:ECHO_TOKEN}@127.0.0.1:${listener.port}/ok`, { "x-token": "Bearer ${secret:ECHO_TOKEN}" }));
    expect(res.body.ledger[0]).toMatchObject({ failed: false, exitCode: 200 });
    expect(listener.requests).toHaveLength(1);
    const [req] = listener.requests;
    expect(req.url).toBe("/ok");
    expect(req.headers["x-token"]).toBe(`Bearer ${ECHO_TOKEN}`);
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`bot:${ECHO_TOKEN}`).toString("base64")}`);
    // The context in the body never carries a value.
    expectNoForm(req.body, ECHO_TOKEN);
  });

  test("an endpoint that echoes its headers gets nothing it was not allowed, and what it echoes is redacted in every form", async () => {
    const refused = await trial(webhook(echo.url, { "x-token": "${secret:DB_PASSWORD}" }));
    expect(echo.requests).toEqual([]);
    expect(refused.body.ledger[0].failed).toBe(true);
    expectNoForm(JSON.stringify(refused.body), DB_PASSWORD);

    const echoed = await trial(webhook(echo.url, { "x-token": "${secret:ECHO_TOKEN}" }));
    expect(echo.requests).toHaveLength(1);
    expect(echoed.body).toMatchObject({ verdict: "block", reason: expect.stringContaining("[REDACTED]") });
    expect(echoed.body.ledger[0].stdout).toContain("[REDACTED]");
    expectNoForm(JSON.stringify(echoed.body), ECHO_TOKEN);
  });

  test("a notice token naming a secret not bound to the notice service's host is refused", async () => {
    setEnv({ HOOKPLANE_SLACK_BASE_URL: listener.url });
    const slack = (tokenSecret: string) => ({ id: "notify", event: "session.end", action: { type: "slack", channel: "C1", tokenSecret } });
    const refused = await trial(slack("DB_PASSWORD"), { type: "session.end", outcome: "completed" });
    expect(refused.body.ledger[0]).toMatchObject({
      failed: true,
      reason: "secret DB_PASSWORD may not be sent to 127.0.0.1: its hosts, set by an admin with the secret, do not include it (onFailure: continue)",
    });
    expect(listener.requests).toEqual([]);
    expectNoForm(JSON.stringify(refused.body), DB_PASSWORD);

    // A token bound to the service's host goes (the configured base URL is the operator's, so
    // its loopback host passes the guard); a tokenSecret that is not a name is refused at save.
    const sent = await trial(slack("ECHO_TOKEN"), { type: "session.end", outcome: "completed" });
    expect(sent.body.ledger[0]).toMatchObject({ failed: false });
    expect(listener.requests.map((r) => [r.url, r.headers.authorization])).toEqual([["/chat.postMessage", `Bearer ${ECHO_TOKEN}`]]);
    const notAName = await saveHook({ ...slack("${secret:DB_PASSWORD}"), id: "bad-token" });
    expect(notAName.status).toBe(422);
    expect(notAName.body.error.issues[0].path).toBe("action.tokenSecret");
  });

  test("write_file and memory of ${secret:...} are refused at save and at fire; an agent's own call stores it unexpanded", async () => {
    const writeHook = { id: "write-it", event: "session.end", action: { type: "tool", tool: "write_file", args: { path: "leak.txt", content: "${secret:DB_PASSWORD}" } } };
    const memoryHook = { id: "remember-it", event: "session.end", action: { type: "tool", tool: "memory", args: { action: "append", file: "leak.md", text: "k=${secret:ECHO_TOKEN}" } } };
    for (const [hook, field] of [[writeHook, "action.args.content"], [memoryHook, "action.args.text"]] as const) {
      const saved = await saveHook(hook);
      expect(saved.status).toBe(422);
      expect(saved.body.error.issues).toEqual([{ path: field, message: expect.stringContaining("cannot be used here") }]);
      // The editor's save action says the same, at the same field.
      const form = new FormData();
      form.set("spec", JSON.stringify(hook));
      const state = await saveHookAction({}, form);
      expect(state.fieldErrors?.[field]).toContain("cannot be used here");
      const fired = await trial(hook, { type: "session.end", outcome: "completed" });
      expect(fired.body.ledger[0]).toMatchObject({ failed: true, reason: expect.stringContaining(`invalid action: ${field}:`) });
    }
    const { rows } = await h.t.execute("select name, content from memory_notes");
    expect(JSON.stringify(rows)).not.toContain(ECHO_TOKEN);
    const { rows: stored } = await h.t.execute("select count(*)::int as n from hooks");
    expect(stored[0].n).toBe(1); // only the stored-leak webhook of the first test

    // The model asks for the same thing itself: nothing substitutes secrets in a tool's input.
    const agent = await addAgent(h.t, {
      name: "writer",
      tools: ["write_file", "read_file", "memory"],
      script: [
        {
          toolCalls: [
            { name: "write_file", input: { path: "leak.txt", content: "${secret:DB_PASSWORD}" } },
            { name: "read_file", input: { path: "leak.txt" } },
            { name: "memory", input: { action: "append", file: "leak.md", text: "${secret:DB_PASSWORD}" } },
            { name: "memory", input: { action: "read", file: "leak.md" } },
          ],
        },
        { text: "done" },
      ],
    });
    const run = await startRun(h.t.db, operatorPrincipal, { agent: agent.name, prompt: "leak it" });
    await waitForRun(h.t, run.id, (r) => r.status === "finished");
    expect(await readFile(path.join(h.workspacesDir, run.id, "leak.txt"), "utf8")).toBe("${secret:DB_PASSWORD}");
    const events = JSON.stringify(await runEvents(h.t, run.id));
    expect(events).toContain("${secret:DB_PASSWORD}");
    expectNoForm(events, DB_PASSWORD);
    const notes = await h.t.execute("select content from memory_notes where name = 'leak.md'");
    expect(notes.rows).toEqual([{ content: "${secret:DB_PASSWORD}" }]);
  });

  test("base64, hex and URL-encoded echoes of a secret are redacted in ledger rows and run events", async () => {
    const agent = await addAgent(
      h.t,
      { name: "echoed", tools: ["write_file"], script: [{ toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a" } }] }, { text: "done" }] },
      [{ id: "echo-guard", event: "tool.pre", action: { type: "webhook", url: echo.url, headers: { "x-token": "${secret:ECHO_TOKEN}" } } }],
    );
    const run = await startRun(h.t.db, operatorPrincipal, { agent: agent.name, prompt: "go" });
    await waitForRun(h.t, run.id, (r) => r.status === "finished");
    expect(echo.requests).toHaveLength(1);
    const ledger = await listRunHookInvocations(h.t.db, { runId: run.id });
    const guard = ledger.find((row) => row.hookKey === "echo-guard");
    expect(guard).toMatchObject({ verdict: "block", reason: expect.stringContaining("echo exact=[REDACTED]") });
    const events = await runEvents(h.t, run.id);
    const denied = events.find((e) => e.type === "loop.tool_denied");
    expect(JSON.stringify(denied?.data)).toContain("base64=[REDACTED]");
    expect(JSON.stringify(events.filter((e) => e.type === "loop.reminders"))).toContain("context exact=[REDACTED]");
    expectNoForm(JSON.stringify(ledger), ECHO_TOKEN);
    expectNoForm(JSON.stringify(events), ECHO_TOKEN);
  });

  test("a secret placed in a URL's host is refused at save and never echoed back, not even lower-cased", async () => {
    const inHost = webhook("https://${secret:DB_PASSWORD}.example.com/x");
    const saved = await saveHook(inHost);
    expect(saved.status).toBe(422);
    expect(saved.body.error.issues).toEqual([{ path: "action.url", message: expect.stringContaining("outside its userinfo") }]);
    const fired = await trial(inHost);
    expect(fired.body.ledger[0]).toMatchObject({ failed: true, reason: expect.stringContaining("invalid action: action.url:") });
    expectNoForm(JSON.stringify(fired.body), DB_PASSWORD);
    expect(JSON.stringify(fired.body)).not.toContain("db+pass");
  });
});

describe("one outbound policy", () => {
  test("webhooks to loopback are refused without the allow-list, in one message whether a port is open or closed", async () => {
    setEnv({ HOOKPLANE_ALLOW_PRIVATE_HOSTS: undefined });
    const closed = await startServer(() => {});
    await closed.close();
    const urls = [
      `http://127.0.0.1:${listener.port}/`,
      `https://127.0.0.1:${listener.port}/`,
      `https://localhost:${listener.port}/`,
      `https://[::1]:${listener.port}/`,
      `https://[::ffff:127.0.0.1]:${listener.port}/`,
      `https://2130706433:${listener.port}/`,
      `https://127.0.0.1:${closed.port}/`,
    ];
    const reasons: string[] = [];
    for (const url of urls) {
      const res = await trial(webhook(url));
      expect(res.body.ledger[0].failed, url).toBe(true);
      reasons.push(res.body.ledger[0].reason);
    }
    expect(listener.requests).toEqual([]);
    expect(reasons[0]).toContain("plain http is allowed only to hosts on the admin's allow-list");
    for (const reason of reasons.slice(1)) {
      expect(reason).toMatch(/^refused: \S+ is not an allowed destination \(private, loopback, link-local or metadata addresses need the admin's HOOKPLANE_ALLOW_PRIVATE_HOSTS\)$/);
    }
    // The open port and the closed one answer alike: nothing was contacted to find out.
    expect(reasons[1].replace(String(listener.port), "")).toBe(reasons[6].replace(String(closed.port), ""));
    expect(reasons.join(" ")).not.toMatch(/ECONNREFUSED|refused the connection|timed out|timeout/i);
  });

  test("webhooks to private, link-local, CGNAT, ULA and metadata targets are refused before connecting", async () => {
    const targets = [
      "https://10.0.0.1/",
      "https://169.254.169.254/latest/meta-data/",
      "https://192.168.1.1/",
      "https://100.64.0.1/",
      "https://[fd00::1]/",
      "https://[fe80::1]/",
      "https://[::ffff:169.254.169.254]/",
      "https://metadata.google.internal/computeMetadata/v1/",
      "https://metadata.google.internal./",
    ];
    for (const url of targets) {
      const started = Date.now();
      const res = await trial(webhook(url, {}, { timeoutMs: 5_000 }));
      const elapsed = Date.now() - started;
      expect(res.body.ledger[0], url).toMatchObject({ failed: true, timedOut: false, reason: expect.stringMatching(/^refused: \S+ is not an allowed destination/) });
      // A refusal that had to wait for a connection would take the timeout or a network error.
      expect(elapsed, url).toBeLessThan(1_000);
    }
  });

  test("file:// and gopher:// are refused at save with the field's path, through every door, and at fire", async () => {
    for (const url of ["file:///etc/passwd", `gopher://127.0.0.1:${listener.port}/_GET%20/`]) {
      const created = await saveHook(webhook(url));
      expect(created.status).toBe(422);
      expect(created.body.error.issues).toEqual([{ path: "action.url", message: expect.stringMatching(/^only http and https URLs are allowed \(got (file|gopher):\)$/) }]);

      const form = new FormData();
      form.set("spec", JSON.stringify(webhook(url)));
      expect((await saveHookAction({}, form)).fieldErrors).toEqual({ "action.url": expect.stringContaining("only http and https") });

      const imported = await callRoute(configImportRoute.POST, {
        method: "POST",
        token: operator,
        body: { dialect: "hookplane", content: JSON.stringify({ hookplane: 1, hooks: [webhook(url)] }) },
      });
      expect(imported.status).toBe(422);
      expect(imported.body.error.issues).toEqual([{ path: "hooks[0].action.url", message: expect.stringContaining("only http and https") }]);

      const fired = await trial(webhook(url));
      expect(fired.body.ledger[0]).toMatchObject({ failed: true, reason: expect.stringContaining("invalid action: action.url: only http and https URLs are allowed") });
    }
    // An update cannot smuggle it in either.
    const ok = await saveHook({ ...webhook("https://hooks.example.com/x"), id: "to-update" });
    expect(ok.status).toBe(201);
    const patched = await callRoute(hookRoute.PATCH, {
      method: "PATCH",
      token: operator,
      params: { id: ok.body.id },
      body: { action: { type: "webhook", url: "gopher://127.0.0.1:70/" } },
    });
    expect(patched.status).toBe(422);
    expect(patched.body.error.issues[0].path).toBe("action.url");
    expect(listener.requests).toEqual([]);
  });
});
