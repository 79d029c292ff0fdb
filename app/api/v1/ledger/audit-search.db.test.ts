/**
 * The audit journey through the API: runs of real scripted agents guarded by a `no-prod` block
 * hook fill the ledger; the ledger search, the runs and ledger exports and the config change log
 * must find exactly what happened.
 */
import { parseCsv } from "@/test/csv";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { insertHookInvocations, type NewHookInvocation } from "@/db/queries/hook-invocations";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { callRoute } from "@/test/api-client";
import { issueApiToken } from "@/lib/platform/auth/account-service";
import { startRun } from "@/lib/features/runs/run-service";
import { addAgent, createRunHarness, operator, waitForRun, type RunHarness } from "@/test/run-harness";
import * as agentRoute from "../agents/[id]/route";
import * as auditRoute from "../audit/route";
import * as runsExportRoute from "../runs/export/route";
import * as runsRoute from "../runs/route";
import * as ledgerExportRoute from "./export/route";
import * as ledgerRoute from "./route";
import { addPerson, addToken } from "@/test/people";
import { hashPassword } from "@/lib/platform/auth/password";

type Handler = (request: Request, context?: { params?: Promise<Record<string, string>> }) => Promise<Response>;

let h: RunHarness;
let admin: string;
let viewer: string;
const runIds = { tricky: "", older: "", quiet: "" };
const agentIds = { deployer: "", quiet: "" };

/** A prompt that breaks naive CSV: quotes, commas, a newline, a CR and edge spaces. */
const TRICKY_PROMPT = ' Deploy "v2", then\r\nreport back, please ';

const noProd = {
  id: "no-prod",
  event: "tool.pre" as const,
  matcher: "write_file",
  action: { type: "block" as const, reason: "Production paths are off-limits", denyIf: "/srv/prod" },
};
const writeTurn = (path: string) => ({
  text: `writing ${path}`,
  toolCalls: [{ name: "write_file", input: { path, content: "replicas: 3\n" } }],
  usage: { inputTokens: 100, outputTokens: 20 },
});

async function download(handler: Handler, path: string, token = viewer) {
  return handler(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${token}` } }));
}


function csvObjects(text: string) {
  const [header, ...rows] = parseCsv(text);
  for (const row of rows) expect(row).toHaveLength(header.length);
  return rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]])));
}

function ndjsonObjects(text: string) {
  if (text === "") return [];
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}

async function listAll(handler: Handler, query: string) {
  const ids: string[] = [];
  let cursor = "";
  for (;;) {
    const page = await callRoute(handler, { token: viewer, path: `/?limit=2&${query}${cursor ? `&cursor=${cursor}` : ""}` });
    expect(page.status).toBe(200);
    ids.push(...page.body.items.map((i: { id: string | number }) => String(i.id)));
    if (!page.body.nextCursor) return ids;
    cursor = encodeURIComponent(page.body.nextCursor);
  }
}

beforeAll(async () => {
  h = await createRunHarness();
  admin = (await addToken(h.t.db, { role: "admin", name: "setup", userId: (await addPerson(h.t.db, { email: "admin@example.com", instanceAdmin: true, passwordHash: await hashPassword("long enough") })).id })).token;
  viewer = (await addToken(h.t.db, { role: "viewer", name: "auditor" })).token;

  const deployer = await addAgent(
    h.t,
    { name: "deployer", tools: ["write_file"], script: [writeTurn("/srv/prod/app.yml"), writeTurn("app.yml.patch"), { text: "wrote a patch" }] },
    [noProd],
  );
  const quiet = await addAgent(h.t, { name: "quiet", tools: ["write_file"], script: [writeTurn("notes.md"), { text: "ok" }] }, [noProd]);
  agentIds.deployer = deployer.id;
  agentIds.quiet = quiet.id;

  runIds.older = (await startRun(h.t.db, operator, { agent: "deployer", prompt: "last week's deploy" })).id;
  await waitForRun(h.t, runIds.older, (r) => r.status === "finished");
  runIds.tricky = (await startRun(h.t.db, operator, { agent: "deployer", prompt: TRICKY_PROMPT })).id;
  runIds.quiet = (await startRun(h.t.db, operator, { agent: "quiet", prompt: "take notes" })).id;
  await waitForRun(h.t, runIds.tricky, (r) => r.status === "finished");
  await waitForRun(h.t, runIds.quiet, (r) => r.status === "finished");
  // The first run's ledger happened ten days ago: outside "this week". The ledger is append-only,
  // so the fixture backdates it the only way left: with its triggers off, as a superuser could
  // (the rows are not sealed yet, so the hash chain still verifies).
  await h.t.db.transaction(async (tx) => {
    await tx.execute(sql`alter table hook_invocations disable trigger user`);
    await tx.execute(
      sql`update hook_invocations set created_at = now() - interval '10 days' where run_id = ${runIds.older}
          and not exists (select 1 from chain_links l where l.table_name = 'hook_invocations' and l.row_id = hook_invocations.id)`,
    );
    await tx.execute(sql`alter table hook_invocations enable trigger user`);
  });
});
afterAll(async () => {
  await h.close();
});

describe("hook ledger search", () => {
  test("every time no-prod blocked a tool this week: exactly the recent block, with its agent and run", async () => {
    const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString();
    const res = await callRoute(ledgerRoute.GET, { token: viewer, path: `/?hook=no-prod&verdict=block&from=${weekAgo}` });
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(1);
    expect(res.body.items[0]).toMatchObject({
      hookKey: "no-prod",
      verdict: "block",
      event: "tool.pre",
      matched: true,
      runId: runIds.tricky,
      agentId: agentIds.deployer,
      agentName: "deployer",
      reason: expect.stringContaining("Production paths are off-limits"),
      // The call it decided on, by tool and by the id its tool.post and its denial carry.
      toolName: "write_file",
      toolCallId: expect.stringMatching(/^call_/),
    });
    expect(res.body.nextCursor).toBeNull();
    const [denial] = (await h.t.execute("select data from run_events where run_id = $1 and type = 'loop.tool_denied'", [runIds.tricky])).rows as { data: { toolCallId: string } }[];
    expect(res.body.items[0].toolCallId).toBe(denial.data.toolCallId);

    const allTime = await callRoute(ledgerRoute.GET, { token: viewer, path: "/?hook=no-prod&verdict=block" });
    expect(allTime.body.items.map((i: { runId: string }) => i.runId)).toEqual([runIds.tricky, runIds.older]);
    const lastWeekOnly = await callRoute(ledgerRoute.GET, { token: viewer, path: `/?hook=no-prod&verdict=block&to=${weekAgo}` });
    expect(lastWeekOnly.body.items.map((i: { runId: string }) => i.runId)).toEqual([runIds.older]);
  });

  test("agent, verdict, matched, run, event and text filters narrow the rows", async () => {
    const quietBlocks = await callRoute(ledgerRoute.GET, { token: viewer, path: "/?agent=quiet&verdict=block" });
    expect(quietBlocks.body.items).toEqual([]);
    const quietAllows = await callRoute(ledgerRoute.GET, { token: viewer, path: `/?agent=${agentIds.quiet}&verdict=allow` });
    expect(quietAllows.body.items.length).toBeGreaterThan(0);
    for (const row of quietAllows.body.items) expect(row).toMatchObject({ agentName: "quiet", runId: runIds.quiet, verdict: "allow" });

    const ofRun = await callRoute(ledgerRoute.GET, { token: viewer, path: `/?runId=${runIds.tricky}&matched=true&event=tool.pre` });
    expect(ofRun.body.items.map((i: { verdict: string }) => i.verdict).sort()).toEqual(["allow", "block"]);
    const byText = await callRoute(ledgerRoute.GET, { token: viewer, path: "/?q=off-LIMITS" });
    expect(byText.body.items.map((i: { runId: string }) => i.runId)).toEqual([runIds.tricky, runIds.older]);
    const wildcard = await callRoute(ledgerRoute.GET, { token: viewer, path: "/?q=%25" });
    expect(wildcard.body.items).toEqual([]);
  });

  test("pages newest first with no duplicate and no gap", async () => {
    const all = await callRoute(ledgerRoute.GET, { token: viewer, path: "/?limit=200" });
    const paged = await listAll(ledgerRoute.GET, "hook=no-prod");
    expect(paged).toEqual(all.body.items.filter((i: { hookKey: string }) => i.hookKey === "no-prod").map((i: { id: number }) => String(i.id)));
    expect(paged.map(Number)).toEqual([...paged.map(Number)].sort((a, b) => b - a));
  });

  test("bad input is a 422 naming the parameter; an unknown agent is 404; no token is 401", async () => {
    const bad = await callRoute(ledgerRoute.GET, { token: viewer, path: "/?verdict=maybe&runId=nope&from=yesterday&event=tool" });
    expect(bad.status).toBe(422);
    expect(bad.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(["event", "from", "runId", "verdict"]);
    expect((await callRoute(ledgerRoute.GET, { token: viewer, path: "/?agent=ghost" })).status).toBe(404);
    expect((await callRoute(ledgerRoute.GET, { path: "/" })).status).toBe(401);
    expect((await callRoute(ledgerExportRoute.GET, { token: viewer, path: "/?format=xlsx" })).body.error.issues[0].path).toBe("format");
    expect((await callRoute(runsExportRoute.GET, { path: "/?format=csv" })).status).toBe(401);
  });
});

describe("exports", () => {
  test("the runs CSV parses back: quotes, commas, line breaks and edge spaces of a prompt survive", async () => {
    const res = await download(runsExportRoute.GET, "/?format=csv");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="hookplane-runs-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = csvObjects(await res.text());
    expect(rows.map((r) => r.id)).toEqual([runIds.quiet, runIds.tricky, runIds.older].filter((id) => rows.some((r) => r.id === id)));
    expect(rows).toHaveLength(3);
    const tricky = rows.find((r) => r.id === runIds.tricky)!;
    expect(tricky).toMatchObject({ prompt: TRICKY_PROMPT, agentName: "deployer", blocked: "true", outcome: "completed", toolsUsed: "write_file" });
    expect(Number(tricky.costUsd)).toBeGreaterThan(0);
  });

  test("the runs NDJSON is one JSON run per line, the same runs as the list", async () => {
    const res = await download(runsExportRoute.GET, "/?format=ndjson");
    expect(res.headers.get("content-type")).toContain("application/x-ndjson");
    expect(res.headers.get("content-disposition")).toMatch(/filename="hookplane-runs-.*\.ndjson"/);
    const runs = ndjsonObjects(await res.text());
    expect(runs.find((r) => r.id === runIds.tricky)).toMatchObject({ prompt: TRICKY_PROMPT, agentName: "deployer", blocked: true });
    expect(runs.map((r) => r.id)).toEqual(await listAll(runsRoute.GET, ""));
  });

  test("the filters narrow the export exactly as they narrow the list", async () => {
    for (const query of ["agent=deployer&blocked=true", "agent=quiet", "q=report%20back", "blocked=false", "outcome=failed"]) {
      const listed = await listAll(runsRoute.GET, query);
      const csv = csvObjects(await (await download(runsExportRoute.GET, `/?format=csv&${query}`)).text()).map((r) => r.id);
      const ndjson = ndjsonObjects(await (await download(runsExportRoute.GET, `/?${query}`)).text()).map((r) => r.id);
      expect(csv, query).toEqual(listed);
      expect(ndjson, query).toEqual(listed);
    }
    expect(await listAll(runsRoute.GET, "agent=deployer&blocked=true")).toHaveLength(2);
  });

  test("the ledger export has the same rows as the ledger search, in both formats", async () => {
    for (const query of ["hook=no-prod&verdict=block", "agent=quiet", `runId=${runIds.tricky}`]) {
      const listed = await listAll(ledgerRoute.GET, query);
      const csvRes = await download(ledgerExportRoute.GET, `/?format=csv&${query}`);
      expect(csvRes.headers.get("content-disposition")).toMatch(/filename="hookplane-ledger-\d{4}-\d{2}-\d{2}\.csv"/);
      const csv = csvObjects(await csvRes.text());
      const ndjson = ndjsonObjects(await (await download(ledgerExportRoute.GET, `/?format=ndjson&${query}`)).text());
      expect(csv.map((r) => r.id), query).toEqual(listed);
      expect(ndjson.map((r) => String(r.id)), query).toEqual(listed);
    }
    const [block] = csvObjects(await (await download(ledgerExportRoute.GET, "/?format=csv&hook=no-prod&verdict=block")).text());
    expect(block).toMatchObject({ hookKey: "no-prod", verdict: "block", agentName: "deployer", runId: runIds.tricky, event: "tool.pre", matched: "true", toolName: "write_file", toolCallId: expect.stringMatching(/^call_/) });
  });

  test("a ledger larger than one export page streams whole, in order, with no duplicate", async () => {
    const rows: NewHookInvocation[] = Array.from({ length: 2_345 }, (_, i) => ({
      projectId: DEFAULT_PROJECT_ID,
      event: "tool.pre",
      hookKey: "bulk",
      matched: true,
      verdict: i % 2 ? "allow" : "block",
      reason: `row ${i}, "quoted"\nsecond line`,
    }));
    await insertHookInvocations(h.t.db, { rows });
    const res = await download(ledgerExportRoute.GET, "/?format=ndjson&hook=bulk");
    const body = res.body!.getReader();
    let chunks = 0;
    let text = "";
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await body.read();
      if (done) break;
      chunks++;
      text += decoder.decode(value, { stream: true });
    }
    expect(chunks).toBeGreaterThan(1);
    const ids = ndjsonObjects(text).map((r) => r.id as number);
    expect(ids).toHaveLength(2_345);
    expect(new Set(ids).size).toBe(2_345);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const csv = csvObjects(await (await download(ledgerExportRoute.GET, "/?format=csv&hook=bulk&verdict=block")).text());
    expect(csv).toHaveLength(1_173);
    expect(csv.at(-1)!.reason).toBe('row 0, "quoted"\nsecond line');
  });
});

describe("config change log", () => {
  test("an agent update is listed with who, before and after; filters and pages work", async () => {
    const patched = await callRoute(agentRoute.PATCH, { method: "PATCH", token: admin, params: { id: "deployer" }, body: { maxTurns: 7 } });
    expect(patched.status).toBe(200);

    const log = await callRoute(auditRoute.GET, { token: viewer, path: `/?entityType=agent&entityId=${agentIds.deployer}` });
    expect(log.status).toBe(200);
    expect(log.body.items[0]).toMatchObject({
      action: "agent.update",
      actor: "token:setup",
      entityType: "agent",
      entityId: agentIds.deployer,
      before: expect.objectContaining({ maxTurns: 20 }),
      after: expect.objectContaining({ maxTurns: 7 }),
    });
    expect(typeof log.body.items[0].createdAt).toBe("string");

    const byNamespace = await callRoute(auditRoute.GET, { token: viewer, path: "/?action=agent" });
    expect(byNamespace.body.items.map((i: { action: string }) => i.action)).toEqual(["agent.update"]);
    const exact = await callRoute(auditRoute.GET, { token: viewer, path: "/?action=agent.update&actor=token:setup" });
    expect(exact.body.items).toHaveLength(1);
    const nobody = await callRoute(auditRoute.GET, { token: viewer, path: "/?actor=nobody@example.com" });
    expect(nobody.body.items).toEqual([]);
    const future = await callRoute(auditRoute.GET, { token: viewer, path: `/?from=${new Date(Date.now() + 60_000).toISOString()}` });
    expect(future.body.items).toEqual([]);

    // More of the project's changes, so the list spans pages of two.
    for (const maxTurns of [8, 9]) {
      expect((await callRoute(agentRoute.PATCH, { method: "PATCH", token: admin, params: { id: "deployer" }, body: { maxTurns } })).status).toBe(200);
    }
    const all = await callRoute(auditRoute.GET, { token: viewer, path: "/?limit=200" });
    expect(all.body.items.length).toBeGreaterThan(2);
    expect(await listAll(auditRoute.GET, "")).toEqual(all.body.items.map((i: { id: number }) => String(i.id)));

    const bad = await callRoute(auditRoute.GET, { token: viewer, path: "/?limit=0&to=never" });
    expect(bad.status).toBe(422);
    expect(bad.body.error.issues.map((i: { path: string }) => i.path)).toEqual(["limit", "to"]);
  });
});
