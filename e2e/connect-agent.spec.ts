/**
 * Connecting a coding agent in Chromium: a person opens an agent's connect page, copies the login
 * command and the agent's real Claude Code settings, switches coding agent through the URL, and
 * watches the live check turn green when the real `hookplane` CLI sends their session's first hook
 * call, with the host it reported and a link to the run. Another person's session of the same
 * agent leaves this person's check waiting.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { expect, test, type Browser } from "@playwright/test";
import { AuthPages, dashboardApi } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

// The copy buttons write to the clipboard; the test reads it back.
test.use({ permissions: ["clipboard-read", "clipboard-write"] });

let configDir: string;
test.beforeAll(() => {
  // The CLI's stored credential and offline spool stay in a folder of this file's own.
  configDir = mkdtempSync(path.join(tmpdir(), "hookplane-e2e-connect-"));
});
test.afterAll(() => rmSync(configDir, { recursive: true, force: true }));

/** A session's first hook call, as Claude Code runs the command the settings name. */
function claudeCodeSessionStart(baseUrl: string, token: string, agent: string, sessionId: string) {
  const result = spawnSync(process.execPath, [path.resolve("bin/hookplane.cjs"), "hook", "claude-code", "--agent", agent], {
    input: JSON.stringify({ session_id: sessionId, hook_event_name: "SessionStart", source: "startup", cwd: "/work/project" }),
    env: { ...process.env, HOOKPLANE_URL: baseUrl, HOOKPLANE_TOKEN: token, HOOKPLANE_CONFIG_DIR: configDir },
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(result.status, result.stderr).toBe(0);
}

/** A bridge credential of another member, made as they would make it: signed in, in their own browser. */
async function bridgeCredentialOf(browser: Browser, person: { email: string; password: string }): Promise<string> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await new AuthPages(page).signIn(person.email, person.password);
    const made = await dashboardApi(page).post("/api/v1/bridge-credentials", { data: { name: "their laptop" } });
    expect(made.status()).toBe(201);
    return (await made.json()).token;
  } finally {
    await context.close();
  }
}

test("a person connects Claude Code to an agent: the commands and settings to copy, then the live check turns green on their first event, not on someone else's", async ({ page, browser }, testInfo) => {
  const baseUrl = testInfo.project.use.baseURL!;
  await new AuthPages(page).signInOrSetUp(admin.email, admin.password);
  const api = dashboardApi(page);
  // A new agent with no hook yet: its settings still record its sessions.
  const name = `connect-${Date.now().toString(36)}`;
  const created = await api.post("/api/v1/agents", { data: { name } });
  expect(created.status()).toBe(201);
  const agentId: string = (await created.json()).id;
  const other = { email: `${name}-dev@example.com`, password: "a long password" };
  expect((await api.post("/api/v1/users", { data: { ...other, role: "operator" } })).status()).toBe(201);
  const mine = await api.post("/api/v1/bridge-credentials", { data: { name: "connect laptop" } });
  const myToken: string = (await mine.json()).token;
  const theirToken = await bridgeCredentialOf(browser, other);

  // From the agent's page, one button.
  await page.goto(`/agents/${agentId}`);
  await page.getByTestId("connect-agent").click();
  await expect(page).toHaveURL(new RegExp(`/agents/${agentId}/connect$`));
  await expect(page.getByRole("heading", { name: `Connect ${name}` })).toBeVisible();
  await expect(page.getByTestId("connect-tab-claude-code")).toHaveAttribute("aria-current", "page");

  // Each step's command, copied with its button: the clipboard holds exactly the text shown.
  const login = `hookplane login --url ${baseUrl}`;
  await expect(page.getByTestId("connect-login-text")).toHaveText(login);
  await page.getByTestId("connect-login-copy").click();
  await expect(page.getByTestId("connect-login-copy")).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(login);
  await expect(page.getByTestId("connect-install-text")).toContainText("npm link");

  // The agent's real export, with where it goes; copied from the keyboard.
  const settings = page.getByTestId("connect-settings-text");
  await expect(settings).toContainText(`hookplane hook claude-code --agent ${name}`);
  const pasted = JSON.parse((await settings.textContent())!);
  expect(Object.keys(pasted.hooks).sort()).toEqual(["SessionEnd", "SessionStart", "Stop"]);
  await expect(page.getByTestId("connect-settings-files")).toContainText(".claude/settings.json");
  await expect(page.getByTestId("connect-settings-scope")).toContainText(`${name} has no hooks yet`);
  // The demo agents' hooks are theirs, not this agent's: nothing is said to be lost.
  await expect(page.getByTestId("connect-settings-notes")).toHaveCount(0);
  await page.getByTestId("connect-settings-copy").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("connect-settings-copy")).toHaveText("Copied");
  expect(JSON.parse(await page.evaluate(() => navigator.clipboard.readText()))).toEqual(pasted);

  // Another coding agent is another URL to share, with its own file and settings.
  await page.getByTestId("connect-tab-codex").click();
  await expect(page).toHaveURL(/\?agent=codex$/);
  await expect(settings).toContainText(`hookplane hook codex --agent ${name}`);
  await expect(page.getByTestId("connect-settings-files")).toContainText(".codex/hooks.json");
  await page.goto(`/agents/${agentId}/connect?agent=claude-code`);

  const check = page.getByTestId("connect-check");
  await expect(check).toHaveAttribute("data-state", "waiting");
  await expect(check).toContainText(`Waiting for the first event from ${admin.email}'s Claude Code`);
  // Listening: the live stream is open.
  await expect(page.getByTestId("connect-check-socket")).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath("connect-waiting.png"), fullPage: true });

  // Wrong side: another person's session of the same agent is recorded, and this check still waits.
  claudeCodeSessionStart(baseUrl, theirToken, name, `theirs-${name}`);
  await expect
    .poll(async () => (await (await page.request.get(`/api/v1/runs?agent=${agentId}&actor=${encodeURIComponent(other.email)}`)).json()).items.length)
    .toBe(1);
  await page.waitForTimeout(1_500);
  await expect(check).toHaveAttribute("data-state", "waiting");

  // This person's session: the real CLI with their credential, as Claude Code would run it.
  claudeCodeSessionStart(baseUrl, myToken, name, `mine-${name}`);
  await expect(check).toHaveAttribute("data-state", "connected");
  await expect(page.getByTestId("connect-check-event")).toHaveText("session.start");
  await expect(page.getByTestId("connect-check-host")).toHaveText(hostname());
  await page.screenshot({ path: testInfo.outputPath("connect-connected.png"), fullPage: true });
  await page.getByTestId("theme-toggle").click();
  await page.screenshot({ path: testInfo.outputPath("connect-connected-dark.png"), fullPage: true });
  await page.getByTestId("theme-toggle").click();

  // The link opens this person's run of the session.
  const myRuns = (await (await page.request.get(`/api/v1/runs?agent=${agentId}&actor=${encodeURIComponent(admin.email)}`)).json()).items;
  expect(myRuns).toHaveLength(1);
  await page.getByTestId("connect-check-run").click();
  await expect(page).toHaveURL(new RegExp(`/runs/${myRuns[0].id}$`));
  await expect(page.getByTestId("run-cost")).toBeVisible();
});
