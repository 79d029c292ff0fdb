import { expect, test } from "@playwright/test";
import { AuthPages, dashboardApi } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };

test("an approver edits a held shell call in the approval card: a bad edit is refused at the field, the edited call is what runs", async ({ page }) => {
  await new AuthPages(page).signIn(admin.email, admin.password);
  const api = dashboardApi(page);
  expect((await api.post("/api/v1/agents", {
    data: {
      name: "edit-e2e",
      tools: ["shell"],
      script: [{ text: "Running.", toolCalls: [{ name: "shell", input: { command: "echo as-asked" } }] }, { text: "Ran it." }],
    },
  })).status()).toBe(201);
  expect((await api.post("/api/v1/hooks", {
    data: { id: "edit-e2e-ask", event: "tool.pre", scope: "agent:edit-e2e", matcher: "shell", action: { type: "approve", timeoutMs: 600000, onTimeout: "deny" } },
  })).status()).toBe(201);
  const run = await api.post("/api/v1/runs", { data: { agent: "edit-e2e", prompt: "run it" } });
  const { id } = await run.json();

  await page.getByTestId("nav-approvals").click();
  const card = page.getByTestId("approval-card").filter({ hasText: "edit-e2e" });
  await expect(card).toContainText("echo as-asked");
  await card.getByTestId("approval-edit").click();
  // Always allow goes with the call as asked: it is not offered beside an edit.
  await expect(card.getByTestId("approve-always")).toHaveCount(0);
  const editor = card.getByTestId("approval-input-editor");
  await editor.fill('["not", "an object"]');
  await card.getByTestId("approve").click();
  await expect(card.getByTestId("approval-input-issue")).toBeVisible();
  await expect(card).toHaveCount(1);

  await editor.fill('{"command": "echo as-edited"}');
  await card.getByTestId("approve").click();
  await expect(page.getByTestId("approval-card").filter({ hasText: "edit-e2e" })).toHaveCount(0);
  await expect(page.getByTestId("approval-history").getByTestId("approval-edited").first()).toHaveText("with an edited input");

  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId("run-status")).toHaveText("completed");
  const events = await (await page.request.get(`/api/v1/runs/${id}/events`)).json();
  const post = events.items.find((e: { type: string }) => e.type === "tool.post");
  expect(post.data).toMatchObject({ toolInput: { command: "echo as-edited" }, output: "as-edited\n" });
  const approvals = await (await page.request.get("/api/v1/approvals?status=approved")).json();
  expect(approvals.items.find((a: { runId: string }) => a.runId === id)).toMatchObject({ toolInput: { command: "echo as-asked" }, approvedInput: { command: "echo as-edited" }, decidedBy: admin.email });
});
