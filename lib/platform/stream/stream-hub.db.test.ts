import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { openDatabase, type DbHandle } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { appendRunEvents } from "@/db/queries/run-events";
import { createRun, getRun, runToApi } from "@/db/queries/runs";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { issueApiToken, setupFirstAdmin } from "@/lib/platform/auth/account-service";
import { StreamHub } from "./hub";
import { attachWebSocketEndpoint } from "./ws-endpoint";

interface WebProcess {
  url: string;
  close(): Promise<void>;
}

/** One "web process": its own database connection, hub and WebSocket endpoint. */
async function startWebProcess(handle: DbHandle): Promise<WebProcess> {
  const hub = new StreamHub(handle, {
    readRun: async (id) => {
      const run = await getRun(handle.db, { id });
      return run ? runToApi(run) : undefined;
    },
  });
  await hub.start();
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  const wss = attachWebSocketEndpoint(server, handle, hub);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/api/ws`,
    async close() {
      await hub.stop();
      wss.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

class Subscriber {
  readonly seqs: number[] = [];
  readonly runs: unknown[] = [];
  private socket!: WebSocket;
  constructor(private readonly url: string) {}

  async connect(token: string, subscriptions: object[]) {
    this.socket = new WebSocket(`${this.url}?token=${token}`);
    this.socket.on("message", (raw) => {
      const message = JSON.parse(raw.toString());
      if (message.type === "event") this.seqs.push(message.seq);
      if (message.type === "run") this.runs.push(message.run);
    });
    await new Promise((resolve, reject) => {
      this.socket.once("open", resolve);
      this.socket.once("error", reject);
    });
    for (const sub of subscriptions) this.socket.send(JSON.stringify(sub));
  }

  close() {
    this.socket.close();
  }
}

let t: TestDatabase;
let token: string;
let runId: string;
let web: WebProcess;

const events = (n: number) => Array.from({ length: n }, (_, i) => ({ type: "tool.post", data: { i } }));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

beforeAll(async () => {
  t = await createTestDatabase();
  await setupFirstAdmin(t.db, { email: "a@example.com", password: "long enough" });
  token = (await issueApiToken(t.db, { name: "viewer", role: "viewer", actor: "test" })).token;
  const agent = await createAgent(t.db, { spec: { name: "streamer", model: "scripted", tools: [], maxTurns: 2, timeoutMs: 10_000 } });
  runId = (await createRun(t.db, { agentId: agent!.id, prompt: "x", source: "test" })).id;
  web = await startWebProcess(t);
});
afterAll(async () => {
  await web.close();
  await t.drop();
});

test("a wrong token is refused at the upgrade", async () => {
  const socket = new WebSocket(`${web.url}?token=hp_wrong`);
  const status = await new Promise<number | undefined>((resolve) => socket.once("unexpected-response", (_req, res) => resolve(res.statusCode)));
  expect(status).toBe(401);
});

test("a subscriber with `after` gets stored events, then live ones, gapless across a reconnect", async () => {
  await appendRunEvents(t.db, { runId, events: events(5) });
  const client = new Subscriber(web.url);
  await client.connect(token, [{ type: "subscribe", topic: `run:${runId}`, after: 2 }]);
  await expect.poll(() => client.seqs).toEqual([3, 4, 5]);

  for (let i = 0; i < 5; i++) await appendRunEvents(t.db, { runId, events: events(3) });
  await expect.poll(() => client.seqs).toEqual(range(3, 20));
  client.close();

  // Events keep coming while the client is away; it reconnects with the last seq it saw.
  await appendRunEvents(t.db, { runId, events: events(7) });
  const again = new Subscriber(web.url);
  await again.connect(token, [{ type: "subscribe", topic: `run:${runId}`, after: client.seqs.at(-1) }]);
  await appendRunEvents(t.db, { runId, events: events(2) });
  await expect.poll(() => again.seqs).toEqual(range(21, 29));
  again.close();
});

test("a page of another site cannot open the stream with the session cookie", async () => {
  const session = new WebSocket(web.url, { headers: { origin: "https://evil.example" } });
  const status = await new Promise<number | undefined>((resolve) => session.once("unexpected-response", (_req, res) => resolve(res.statusCode)));
  expect(status).toBe(403);
});

test("a bad subscription gets a readable error, not a dropped socket", async () => {
  const socket = new WebSocket(`${web.url}?token=${token}`);
  await new Promise((resolve) => socket.once("open", resolve));
  const messages: { type: string; message?: string }[] = [];
  socket.on("message", (raw) => messages.push(JSON.parse(raw.toString())));
  socket.send(JSON.stringify({ type: "subscribe", topic: "run:not-a-uuid" }));
  socket.send("{not json");
  await expect.poll(() => messages.filter((m) => m.type === "error").length).toBe(2);
  expect(messages.find((m) => m.type === "error")?.message).toContain("topic");
  socket.close();
});

describe.runIf(Boolean(process.env.DATABASE_URL))("two web processes on one PostgreSQL", () => {
  test("both deliver every event of a run and its status changes", async () => {
    const second = await openDatabase({ databaseUrl: t.databaseUrl });
    const other = await startWebProcess(second);
    try {
      const start = (await getRun(t.db, { id: runId }))!.lastSeq;
      const a = new Subscriber(web.url);
      const b = new Subscriber(other.url);
      await a.connect(token, [{ type: "subscribe", topic: `run:${runId}`, after: start }, { type: "subscribe", topic: "runs" }]);
      await b.connect(token, [{ type: "subscribe", topic: `run:${runId}`, after: start }, { type: "subscribe", topic: "runs" }]);
      await new Promise((r) => setTimeout(r, 100));
      for (let i = 0; i < 10; i++) await appendRunEvents(second.db, { runId, events: events(10) });
      await expect.poll(() => a.seqs).toEqual(range(start + 1, start + 100));
      await expect.poll(() => b.seqs).toEqual(range(start + 1, start + 100));
      const agentId = (await getRun(t.db, { id: runId }))!.agentId;
      await createRun(second.db, { agentId, prompt: "another", source: "test" });
      await expect.poll(() => a.runs.length).toBeGreaterThan(0);
      await expect.poll(() => b.runs.length).toBeGreaterThan(0);
      a.close();
      b.close();
    } finally {
      await other.close();
      await second.close();
    }
  });
});
