/**
 * npm run bench:approvals — an approval decided through a Slack button, to the tool starting,
 * end to end with real processes on one PostgreSQL (DATABASE_URL, default the local test server):
 * the production server (web, no runs) receives Slack's signed callback; a worker process runs
 * the agent, parks it on its approval (HOOKPLANE_APPROVAL_HOLD_MS=0: its worker slot is given
 * back) and resumes it from its checkpoint on the decision; a local server speaks
 * Slack's chat.postMessage and chat.update. Per approval: start a run, wait for its Slack message,
 * click Approve as Slack would (the button's token, a signed form post), and read when the
 * shell step wrote its start time. Needs a production build (`npm run build`).
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createAgent } from "@/db/queries/agents";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { createHook } from "@/db/queries/hooks";
import type { TestDatabase } from "@/test/database";
import { agentSpecSchema } from "@/lib/core/agent/agent-spec";
import { hookSpecSchema } from "@/lib/core/hooks/spec";
import { slackSignature } from "@/lib/features/approvals/slack-interactions";
import { runServerBench, startProcess, stop, summarize, waitForHealth } from "./bench-support";
import { freePort } from "@/test/free-port";

const APPROVALS = Number(process.env.BENCH_APPROVALS ?? 30);
const SIGNING_SECRET = "bench-signing-secret-0123456789";

interface Posted {
  runId: string;
  approve: string;
}

async function fakeSlack() {
  const posted: Posted[] = [];
  let updates = 0;
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      if (req.url === "/chat.postMessage") {
        const body = JSON.parse(text);
        const runId = /\/runs\/([0-9a-f-]{36})/.exec(JSON.stringify(body.blocks))?.[1];
        const actions = body.blocks.find((b: { type: string }) => b.type === "actions");
        const approve = actions?.elements.find((e: { action_id: string }) => e.action_id === "hookplane_approve")?.value;
        if (runId && approve) posted.push({ runId, approve });
      }
      if (req.url === "/chat.update") updates++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, channel: "C0BENCH", ts: `${Date.now() / 1000}` }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, posted, updates: () => updates, close: () => new Promise((r) => server.close(r)) };
}

async function main(t: TestDatabase, dataDir: string) {
  const workspacesDir = `${dataDir}-workspaces`;
  const slack = await fakeSlack();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const shared = {
    DATABASE_URL: t.databaseUrl,
    HOOKPLANE_DATA_DIR: dataDir,
    HOOKPLANE_PUBLIC_URL: base,
    HOOKPLANE_SLACK_BASE_URL: slack.url,
    HOOKPLANE_SLACK_SIGNING_SECRET: SIGNING_SECRET,
  };
  const server = startProcess(["server.ts"], { ...shared, PORT: String(port), NODE_ENV: "production", HOOKPLANE_WORKER_CONCURRENCY: "0" });
  let worker: ReturnType<typeof startProcess> | undefined;
  try {
    await waitForHealth(base);
    const setup = await (await fetch(`${base}/api/v1/setup`, { method: "POST", body: JSON.stringify({ email: "bench@example.com", password: "benchmark!" }) })).json();
    const auth = { authorization: `Bearer ${setup.token}`, "content-type": "application/json" };
    const ok = async (response: Promise<Response>) => {
      const r = await response;
      if (r.status >= 300) throw new Error(`${r.url}: ${r.status} ${await r.text()}`);
      return r;
    };
    await ok(fetch(`${base}/api/v1/users/${setup.user.id}`, { method: "PATCH", headers: auth, body: JSON.stringify({ slackUserId: "UBENCH001" }) }));
    await ok(fetch(`${base}/api/v1/secrets/SLACK_BOT_TOKEN`, { method: "PUT", headers: auth, body: JSON.stringify({ value: "xoxb-bench", hosts: ["127.0.0.1"] }) }));
    const agent = (await createAgent(t.db, {
      projectId: DEFAULT_PROJECT_ID,
      spec: agentSpecSchema.parse({
        name: "asker",
        tools: ["shell"],
        script: [{ toolCalls: [{ name: "shell", input: { command: "date +%s%3N > started.txt" } }] }, { text: "done" }],
      }),
    }))!;
    for (const spec of [
      { id: "ask", event: "tool.pre", action: { type: "approve", timeoutMs: 600_000 } },
      { id: "tell-slack", event: "approval.requested", action: { type: "slack", channel: "C0BENCH", tokenSecret: "SLACK_BOT_TOKEN" } },
    ]) {
      await createHook(t.db, { projectId: DEFAULT_PROJECT_ID, spec: hookSpecSchema.parse({ ...spec, scope: `agent:${agent.id}` }), actor: "bench" });
    }
    worker = startProcess(["worker.ts"], {
      ...shared,
      HOOKPLANE_WORKER_CONCURRENCY: "4",
      // Parks at once: the run gives its worker slot back and is resumed from its checkpoint.
      HOOKPLANE_APPROVAL_HOLD_MS: "0",
      HOOKPLANE_ALLOW_CODE_EXECUTION: "1",
      HOOKPLANE_WORKSPACES_DIR: workspacesDir,
    });

    const latencies: number[] = [];
    const callbacks: number[] = [];
    for (let i = 0; i < APPROVALS; i++) {
      const { id } = await (await ok(fetch(`${base}/api/v1/runs`, { method: "POST", headers: auth, body: JSON.stringify({ agent: "asker", prompt: `go ${i}` }) }))).json();
      let message: Posted | undefined;
      const deadline = Date.now() + 30_000;
      while (!(message = slack.posted.find((p) => p.runId === id))) {
        if (Date.now() > deadline) throw new Error(`no Slack message for run ${id}`);
        await new Promise((r) => setTimeout(r, 5));
      }
      // Parked: waiting for the approval, held by no worker.
      for (;;) {
        const { rows } = await t.execute(`select status, lease_owner from runs where id = '${id}'`);
        if (rows[0]?.status === "waiting_approval" && rows[0]?.lease_owner === null) break;
        if (Date.now() > deadline) throw new Error(`run ${id} did not park`);
        await new Promise((r) => setTimeout(r, 5));
      }
      const payload = {
        type: "block_actions",
        user: { id: "UBENCH001", username: "bench" },
        channel: { id: "C0BENCH" },
        message: { ts: "1" },
        actions: [{ action_id: "hookplane_approve", value: message.approve, action_ts: `${Date.now()}.${i}` }],
      };
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      const timestamp = String(Math.floor(Date.now() / 1000));
      const decidedAt = Date.now();
      const answer = await fetch(`${base}/api/integrations/slack/interactions`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-slack-request-timestamp": timestamp, "x-slack-signature": slackSignature(SIGNING_SECRET, timestamp, body) },
        body,
      });
      callbacks.push(Date.now() - decidedAt);
      if (answer.status !== 200) throw new Error(`callback answered ${answer.status}: ${await answer.text()}`);
      const file = path.join(workspacesDir, id, "started.txt");
      while (!existsSync(file) || readFileSync(file, "utf8").trim() === "") await new Promise((r) => setTimeout(r, 2));
      latencies.push(Number(readFileSync(file, "utf8").trim()) - decidedAt);
    }
    const deadline = Date.now() + 10_000;
    while (slack.updates() < APPROVALS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const started = summarize(latencies);
    const ack = summarize(callbacks);
    console.log("\nbench:approvals — PostgreSQL, a web process and a worker process\n");
    console.log(`Slack callback answered (signature, replay check, decision):  p50 ${ack.p50} ms, p95 ${ack.p95} ms over ${ack.n}`);
    console.log(`Slack callback → tool starts (parked run resumed by worker):  p50 ${started.p50} ms, p95 ${started.p95} ms over ${started.n} (target p95 < 150 ms)`);
    console.log(`messages updated after settling:                             ${slack.updates()} of ${APPROVALS}`);
  } finally {
    if (worker) await stop(worker);
    await stop(server);
    await slack.close();
    rmSync(workspacesDir, { recursive: true, force: true });
  }
}

runServerBench("bench:approvals", main);
