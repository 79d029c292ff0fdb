import { expect, test } from "@playwright/test";
import { AuthPages, dashboardApi } from "./pages";
import { webhookReceiver } from "./webhook-receiver";

const admin = { email: "admin@example.com", password: "correct horse battery" };

test("a decision link opened signed out: confirm, see it decided; opened again, already decided", async ({ page, browser }, testInfo) => {
  const hooks = await webhookReceiver();
  try {
    await new AuthPages(page).signIn(admin.email, admin.password);
    const api = dashboardApi(page);
    expect(
      (
        await api.post("/api/v1/agents", {
          data: { name: "link-writer", tools: ["write_file"], script: [{ text: "Writing.", toolCalls: [{ name: "write_file", input: { path: "notes.txt", content: "hello" } }] }, { text: "Written." }] },
        })
      ).status(),
    ).toBe(201);
    for (const hook of [
      { id: "ask-write", event: "tool.pre", scope: "agent:link-writer", matcher: "write_file", action: { type: "approve", timeoutMs: 600000, onTimeout: "deny" } },
      { id: "tell-hook", event: "approval.requested", scope: "agent:link-writer", action: { type: "webhook", url: `${hooks.url}/approvals` } },
    ]) {
      expect((await api.post("/api/v1/hooks", { data: hook })).status()).toBe(201);
    }
    const run = await api.post("/api/v1/runs", { data: { agent: "link-writer", prompt: "write the notes" } });
    expect(run.status()).toBe(202);
    const { id } = await run.json();
    await expect.poll(() => hooks.bodies.length, { timeout: 20_000 }).toBe(1);
    const notice = hooks.bodies[0].notice as { decisionLinks: { approve: string }[]; runUrl: string };
    expect(notice.runUrl).toMatch(new RegExp(`/runs/${id}$`));
    const link = notice.decisionLinks[0].approve;

    // A browser with no session: the page works signed out.
    const stranger = await browser.newContext();
    const signedOut = await stranger.newPage();
    const opened = await signedOut.goto(link);
    expect(opened?.status()).toBe(200);
    await expect(signedOut.getByTestId("decision-title")).toHaveText("Approve this tool call?");
    await expect(signedOut.getByTestId("tool-name")).toHaveText("write_file");
    await expect(signedOut.getByTestId("tool-input")).toContainText("notes.txt");
    await expect(signedOut.getByTestId("run-link")).toHaveAttribute("href", `/runs/${id}`);
    await signedOut.screenshot({ path: testInfo.outputPath("decision-page.png"), fullPage: true });
    await signedOut.getByLabel("Reason (optional)").fill("looks fine");
    await signedOut.getByTestId("confirm-decision").click();
    await expect(signedOut.getByTestId("decision-title")).toHaveText("Approved");

    const again = await signedOut.goto(link);
    expect(again?.status()).toBe(409);
    await expect(signedOut.getByTestId("decision-title")).toHaveText("Already decided");
    await expect(signedOut.getByTestId("decision-message")).toContainText("approved by webhook:127.0.0.1 via link");
    await stranger.close();

    // The run went on; the dashboard says who decided and how.
    await page.goto(`/runs/${id}`);
    await expect(page.getByTestId("run-status")).toHaveText("completed");
    await page.getByTestId("nav-approvals").click();
    await expect(page.getByTestId("approval-history")).toContainText("webhook:127.0.0.1");
  } finally {
    await hooks.close();
  }
});
