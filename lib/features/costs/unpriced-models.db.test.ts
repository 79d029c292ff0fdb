/**
 * A model with no price is said, not shown as free (issue 28: Claude Code 2.1.332's default
 * model had no price and its sessions cost "$0.00"). A bridged session's transcript usage for a
 * priced and an unpriced model: the costs API marks the unpriced one, the priced one keeps its
 * cost; a model priced at zero on purpose (a local model) is not flagged; another project's
 * unpriced calls are not in this project's report.
 */
import { beforeAll, expect, test } from "vitest";
import { callRoute } from "@/test/api-client";
import { useBridgeHarness } from "@/test/bridge-harness";
import { addProject, addToken } from "@/test/people";
import * as claudeCodeRoute from "@/app/api/v1/ingest/claude-code/route";
import * as costsRoute from "@/app/api/v1/costs/route";
import * as pricesRoute from "@/app/api/v1/prices/route";

const h = useBridgeHarness({ ingest: { method: "POST", path: "/api/v1/ingest/claude-code", handler: claudeCodeRoute.POST }, agents: { coder: [] }, prices: true });
let admin: string;

beforeAll(async () => {
  admin = (await addToken(h.t.db, { role: "admin", name: "admin" })).token;
});

const message = (id: string, model: string) => ({ id, model, input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 0 });
const stop = (session: string, messages: object[]) => ({ session_id: session, transcript_path: "/tmp/t.jsonl", cwd: "/repo", hook_event_name: "Stop", stop_hook_active: false, hookplane_usage: { transcript: "/tmp/t.jsonl", messages } });
type ModelRow = { model: string; costUsd: number; calls: number; unpricedCalls: number };
const byModel = async (token = admin) => {
  const res = await callRoute(costsRoute.GET, { token, path: "/api/v1/costs" });
  expect(res.status).toBe(200);
  return Object.fromEntries((res.body.byModel as ModelRow[]).map((m) => [m.model, m]));
};

test("calls of a model with no price are flagged unpriced ($0 said as such); the priced model keeps its cost", async () => {
  expect((await h.send("coder", stop("s-1", [message("m1", "claude-sonnet-4-5"), message("m2", "claude-opus-5-5"), message("m3", "claude-opus-5-5")]))).status).toBe(200);
  const rows = await byModel();
  expect(rows["anthropic:claude-opus-5-5"]).toMatchObject({ calls: 2, costUsd: 0, unpricedCalls: 2 });
  expect(rows["anthropic:claude-sonnet-4-5"]).toMatchObject({ calls: 1, unpricedCalls: 0 });
  expect(rows["anthropic:claude-sonnet-4-5"].costUsd).toBeCloseTo((1000 * 3 + 100 * 15) / 1e6, 9);

  // Another project sees none of it.
  const other = await addProject(h.t.db, { slug: "elsewhere" });
  const stranger = (await addToken(h.t.db, { role: "viewer", projectId: other.id, name: "stranger" })).token;
  expect(await byModel(stranger)).toEqual({});
});

test("a model priced at zero on purpose is not flagged; a price added later does not hide calls recorded without one", async () => {
  const put = await callRoute(pricesRoute.PUT, { method: "PUT", token: admin, body: { items: [{ modelPattern: "^ollama:.*$", inputUsdPerM: 0, outputUsdPerM: 0 }, { modelPattern: "^anthropic:claude-opus-5-5$", inputUsdPerM: 5, outputUsdPerM: 25 }] } });
  expect(put.status).toBe(200);
  expect((await h.send("coder", stop("s-2", [message("m4", "ollama:llama3"), message("m5", "claude-opus-5-5")]))).status).toBe(200);
  const rows = await byModel();
  expect(rows["ollama:llama3"]).toMatchObject({ calls: 1, costUsd: 0, unpricedCalls: 0 });
  // Three opus calls: two recorded at $0 before the price, one priced after: the two stay said.
  expect(rows["anthropic:claude-opus-5-5"]).toMatchObject({ calls: 3, unpricedCalls: 2 });
  expect(rows["anthropic:claude-opus-5-5"].costUsd).toBeCloseTo((1000 * 5 + 100 * 25) / 1e6, 9);
});
