/**
 * An agent's fail mode in the browser: an admin sets "fail closed" in the agent's settings and it
 * is stored and shown again; a call a developer's CLI let through offline against that policy,
 * reported later, is marked in red on the run with what the CLI applied and why.
 */
import { expect, test } from "@playwright/test";
import { AuthPages, dashboardApi, watchForErrors } from "./pages";

const admin = { email: "admin@example.com", password: "correct horse battery" };


test("an admin sets an agent to fail closed; a call let through offline against it shows on the run", async ({ page }) => {
  const errors = watchForErrors(page);
  await new AuthPages(page).signInOrSetUp(admin.email, admin.password);
  const name = `fail-closed-${Date.now()}`;
  const created = await dashboardApi(page).post("/api/v1/agents", { data: { name } });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };

  await page.goto(`/agents/${id}?tab=settings`);
  const form = page.getByTestId("agent-form");
  const mode = form.getByLabel("When Hookplane cannot answer");
  await expect(mode).toHaveValue("");
  await mode.selectOption("closed");
  await page.getByTestId("save-agent").click();
  await expect.poll(async () => ((await (await page.request.get(`/api/v1/agents/${id}`)).json()) as { failMode?: string }).failMode).toBe("closed");
  await page.reload();
  await expect(page.getByTestId("agent-form").getByLabel("When Hookplane cannot answer")).toHaveValue("closed");

  // A developer's CLI that never heard the policy let a Bash call through with --fail-open, and reports it.
  const sessionId = `offline-${Date.now()}`;
  const reported = await dashboardApi(page).post("/api/v1/ingest/offline", {
    data: {
      entries: [
        {
          id: crypto.randomUUID(),
          bridge: "claude-code",
          agent: name,
          payload: { session_id: sessionId, cwd: "/repo", transcript_path: "/tmp/t.jsonl", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "terraform destroy" }, tool_use_id: "toolu_off" },
          decision: "allowed",
          reason: "Hookplane unreachable at http://127.0.0.1:3000: ECONNREFUSED",
          decidedAt: new Date().toISOString(),
          failMode: "open",
          failModeFrom: "flag",
        },
      ],
    },
  });
  expect(reported.status()).toBe(200);
  expect(await reported.json()).toMatchObject({ recorded: 1 });

  const runs = (await (await page.request.get(`/api/v1/runs?agent=${encodeURIComponent(name)}`)).json()) as { items: { id: string }[] };
  expect(runs.items).toHaveLength(1);
  await page.goto(`/runs/${runs.items[0].id}`);
  const badge = page.getByTestId("offline-badge");
  await expect(badge).toHaveText("let through offline against policy");
  await expect(badge).toHaveAttribute("title", /failing open \(its --fail-open flag\).*agent's fail mode is closed/);
  expect(errors).toEqual([]);
});
