import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { openDatabase, type DbHandle } from "@/db/client";
import { createAgent } from "@/db/queries/agents";
import { getOrCreateApproval, getApprovalInAnyProject, settleApproval } from "@/db/queries/approvals";
import { announceAccessChange } from "@/db/queries/access-changes";
import { setMemberRole } from "@/db/queries/projects";
import { appendRunEvents, appendRunRecords, type LedgerRowOfBatch } from "@/db/queries/run-events";
import { createRun, getRunInAnyProject, runToApi } from "@/db/queries/runs";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { createSession } from "@/db/queries/sessions";
import { hashSecretToken, newSecretToken } from "@/lib/platform/auth/secret-token";
import { addPerson, addProject, addToken, DEFAULT_PROJECT_ID } from "@/test/people";
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
      const run = await getRunInAnyProject(handle.db, { id });
      return run ? { ...runToApi(run), projectId: run.projectId } : undefined;
    },
    readApproval: (id) => getApprovalInAnyProject(handle.db, { id }),
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
  readonly runs: { id: string; projectId: string }[] = [];
  readonly approvals: { id: string; projectId: string }[] = [];
  /** Ledger messages as they came: each one's row ids (hook keys beside, to check the rows themselves). */
  readonly ledger: { runId: string; rows: { id: number; eventSeq: number | null; hookKey: string; createdAt: string }[] }[] = [];
  readonly messages: { type: string; message?: string; topic?: string; project?: string }[] = [];
  closedWith?: number;
  private socket!: WebSocket;
  constructor(private readonly url: string) {}

  async connect(token: string, subscriptions: object[], query = "") {
    this.socket = new WebSocket(`${this.url}?token=${token}${query}`);
    this.socket.on("message", (raw) => {
      const message = JSON.parse(raw.toString());
      this.messages.push(message);
      if (message.type === "event") this.seqs.push(message.seq);
      if (message.type === "run") this.runs.push(message.run);
      if (message.type === "approval") this.approvals.push(message.approval);
      if (message.type === "ledger") this.ledger.push(message);
    });
    this.socket.on("close", (code) => (this.closedWith = code));
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
  token = (await addToken(t.db, { role: "viewer" })).token;
  const agent = await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name: "streamer", model: "scripted", tools: [], maxTurns: 2, timeoutMs: 10_000 } });
  runId = (await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent!.id, prompt: "x", source: "test" })).id;
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

test("a bridge credential is refused at the upgrade: it sends its person's hook events and reads no stream", async () => {
  const dev = await addPerson(t.db, { email: `dev-${Date.now()}@example.com`, role: "operator" });
  const bridge = await addToken(t.db, { role: "viewer", kind: "bridge", userId: dev.id, name: "laptop" });
  const socket = new WebSocket(`${web.url}?token=${bridge.token}`);
  const status = await new Promise<number | undefined>((resolve) => socket.once("unexpected-response", (_req, res) => resolve(res.statusCode)));
  expect(status).toBe(403);
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

describe("a run's hook ledger on the stream", () => {
  const row = (runId: string, hookKey: string, eventSeq: number | null): LedgerRowOfBatch => ({
    runId, projectId: DEFAULT_PROJECT_ID, eventSeq, event: "tool.pre", hookKey, scope: "global", matched: true, verdict: "allow", mode: "enforce", action: "block", ignored: false, failed: false, timedOut: false,
  });
  const keysOf = (client: Subscriber) => client.ledger.flatMap((m) => m.rows.map((r) => r.hookKey));

  test("with afterLedger: the stored rows, then each row as committed (with its events, or alone when an approval settles), each once; without it, none", async () => {
    const agent = await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name: "ledger-streamer", model: "scripted", tools: [], maxTurns: 2, timeoutMs: 10_000 } });
    const run = (await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent!.id, prompt: "x", source: "test" })).id;
    // Another run's rows never reach this run's subscribers.
    const other = (await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent!.id, prompt: "y", source: "test" })).id;
    await appendRunRecords(t.db, { runId: run, events: events(2), ledger: [row(run, "stored-1", 1), row(run, "stored-2", 2)] });

    const withLedger = new Subscriber(web.url);
    const eventsOnly = new Subscriber(web.url);
    await withLedger.connect(token, [{ type: "subscribe", topic: `run:${run}`, after: 0, afterLedger: 0 }]);
    await eventsOnly.connect(token, [{ type: "subscribe", topic: `run:${run}`, after: 0 }]);
    await expect.poll(() => keysOf(withLedger)).toEqual(["stored-1", "stored-2"]);

    await appendRunRecords(t.db, { runId: other, events: events(1), ledger: [row(other, "elsewhere", 1)] });
    await appendRunRecords(t.db, { runId: run, events: events(1), ledger: [row(run, "live", 3)] });
    // An approval's row is written when it settles, with no event: it is streamed all the same.
    await appendRunRecords(t.db, { runId: run, events: [], ledger: [row(run, "settled-approval", 2)] });
    await expect.poll(() => keysOf(withLedger)).toEqual(["stored-1", "stored-2", "live", "settled-approval"]);
    await expect.poll(() => eventsOnly.seqs).toEqual([1, 2, 3]);
    await new Promise((r) => setTimeout(r, 300));
    expect(keysOf(withLedger)).toEqual(["stored-1", "stored-2", "live", "settled-approval"]);
    expect(eventsOnly.ledger).toEqual([]);
    expect(withLedger.ledger.every((m) => m.runId === run)).toBe(true);
    // The rows are the API's rows: the same ids, seqs and fields as GET /runs/{id}/hooks reads.
    const stored = await listRunHookInvocations(t.db, { runId: run });
    expect(withLedger.ledger.flatMap((m) => m.rows)).toEqual(stored.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })));
    withLedger.close();

    // A reconnect from the last row it had gets only what came after.
    await appendRunRecords(t.db, { runId: run, events: events(1), ledger: [row(run, "while-away", 4)] });
    const again = new Subscriber(web.url);
    await again.connect(token, [{ type: "subscribe", topic: `run:${run}`, after: 4, afterLedger: stored.at(-1)!.id }]);
    await expect.poll(() => keysOf(again)).toEqual(["while-away"]);
    again.close();
    eventsOnly.close();
  });

  test("another project's socket asking for a run's ledger gets 'not found' and no row, before or after a write", async () => {
    const agent = await createAgent(t.db, { projectId: DEFAULT_PROJECT_ID, spec: { name: "ledger-private", model: "scripted", tools: [], maxTurns: 2, timeoutMs: 10_000 } });
    const run = (await createRun(t.db, { projectId: DEFAULT_PROJECT_ID, agentId: agent!.id, prompt: "x", source: "test" })).id;
    await appendRunRecords(t.db, { runId: run, events: events(1), ledger: [row(run, "private-1", 1)] });
    const elsewhere = await addProject(t.db, { slug: "ledger-elsewhere" });
    const stranger = (await addToken(t.db, { role: "admin", projectId: elsewhere.id })).token;
    const client = new Subscriber(web.url);
    await client.connect(stranger, [{ type: "subscribe", topic: `run:${run}`, after: 0, afterLedger: 0 }]);
    await expect.poll(() => client.messages.find((m) => m.type === "error")?.message).toBe(`run ${run} not found in project ledger-elsewhere`);
    await appendRunRecords(t.db, { runId: run, events: events(1), ledger: [row(run, "private-2", 2)] });
    await new Promise((r) => setTimeout(r, 300));
    expect([client.ledger, client.seqs]).toEqual([[], []]);
    client.close();
  });

  test("afterLedger that is not a whole number is refused with the field named", async () => {
    const client = new Subscriber(web.url);
    await client.connect(token, [{ type: "subscribe", topic: `run:${runId}`, afterLedger: -1 }]);
    await expect.poll(() => client.messages.find((m) => m.type === "error")?.message).toMatch(/^afterLedger: /);
    client.close();
  });
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

describe("one project per socket", () => {
  const settle = () => new Promise((r) => setTimeout(r, 300));

  test("B's socket gets none of A's runs, approvals or run events; A's socket gets them", async () => {
    const projectA = await addProject(t.db, { slug: "stream-a" });
    const projectB = await addProject(t.db, { slug: "stream-b" });
    const tokenA = (await addToken(t.db, { role: "viewer", projectId: projectA.id })).token;
    const tokenB = (await addToken(t.db, { role: "admin", projectId: projectB.id })).token;
    const agentA = await createAgent(t.db, { projectId: projectA.id, spec: { name: "a-agent", model: "scripted", tools: [], maxTurns: 2, timeoutMs: 10_000 } });
    const agentB = await createAgent(t.db, { projectId: projectB.id, spec: { name: "b-agent", model: "scripted", tools: [], maxTurns: 2, timeoutMs: 10_000 } });
    const runA = await createRun(t.db, { projectId: projectA.id, agentId: agentA!.id, prompt: "a", source: "test" });

    const a = new Subscriber(web.url);
    const b = new Subscriber(web.url);
    await a.connect(tokenA, [{ type: "subscribe", topic: "runs" }, { type: "subscribe", topic: "approvals" }, { type: "subscribe", topic: `run:${runA.id}` }]);
    await b.connect(tokenB, [{ type: "subscribe", topic: "runs" }, { type: "subscribe", topic: "approvals" }, { type: "subscribe", topic: `run:${runA.id}` }]);
    await expect.poll(() => b.messages.filter((m) => m.type === "subscribed" || m.type === "error").length).toBe(3);
    // Refused like a run that does not exist: nothing says it is there.
    expect(b.messages.find((m) => m.type === "error")?.message).toBe(`run ${runA.id} not found in project stream-b`);
    expect(b.messages.filter((m) => m.type === "subscribed").map((m) => m.topic)).toEqual(["runs", "approvals"]);
    expect(b.messages[0]).toMatchObject({ type: "hello", project: "stream-b" });
    await expect.poll(() => a.messages.filter((m) => m.type === "subscribed").length).toBe(3);

    await appendRunEvents(t.db, { runId: runA.id, events: events(3) });
    const runA2 = await createRun(t.db, { projectId: projectA.id, agentId: agentA!.id, prompt: "a2", source: "test" });
    const { row: approvalA } = await getOrCreateApproval(t.db, { runId: runA.id, hookKey: "ask", toolName: "shell", toolInput: {}, toolCallId: "c1", onTimeout: "deny", expiresAt: null });
    expect(approvalA.projectId).toBe(projectA.id);
    await settleApproval(t.db, { id: approvalA.id, status: "approved", decidedBy: "x", decidedVia: "test" });
    // A row of B's own project does reach B: the filter is per project, not a closed door.
    const runB = await createRun(t.db, { projectId: projectB.id, agentId: agentB!.id, prompt: "b", source: "test" });

    await expect.poll(() => a.seqs).toEqual([1, 2, 3]);
    await expect.poll(() => a.runs.some((r) => r.id === runA2.id)).toBe(true);
    await expect.poll(() => a.approvals.filter((x) => x.id === approvalA.id).length).toBeGreaterThan(0);
    await expect.poll(() => b.runs.some((r) => r.id === runB.id)).toBe(true);
    await settle();
    expect(b.seqs).toEqual([]);
    expect(b.approvals).toEqual([]);
    expect(b.runs.every((r) => r.projectId === projectB.id)).toBe(true);
    expect(a.runs.every((r) => r.projectId === projectA.id)).toBe(true);
    a.close();
    b.close();
  });

  test("a token names only its project; leaving the project closes the socket", async () => {
    const project = await addProject(t.db, { slug: "stream-c" });
    const person = await addPerson(t.db, { email: "mover@example.com", role: "viewer", projectId: project.id });
    const member = await addToken(t.db, { role: "viewer", projectId: project.id, userId: person.id });

    const wrong = new WebSocket(`${web.url}?token=${member.token}&project=default`);
    expect(await new Promise<number | undefined>((resolve) => wrong.once("unexpected-response", (_req, res) => resolve(res.statusCode)))).toBe(403);

    const socket = new Subscriber(web.url);
    await socket.connect(member.token, [{ type: "subscribe", topic: "runs" }], "&project=stream-c");
    await expect.poll(() => socket.messages.some((m) => m.type === "subscribed")).toBe(true);
    expect(socket.messages[0]).toMatchObject({ type: "hello", role: "viewer", project: "stream-c" });

    await setMemberRole(t.db, { projectId: project.id, userId: person.id, role: null });
    await announceAccessChange(t.db, { userId: person.id });
    await expect.poll(() => socket.closedWith).toBe(4401);
  });

  // Membership ended with the session kept, as deleting a project does (a removal through the
  // people service also ends the sessions: 4401, web-boundary.db.test.ts).
  test("a person whose membership of the socket's project ends, still in another, gets 4404; from the last one, 4401", async () => {
    const [first, second] = [await addProject(t.db, { slug: "stream-d" }), await addProject(t.db, { slug: "stream-e" })];
    const person = await addPerson(t.db, { email: "two-projects@example.com", role: "operator", projectId: first.id });
    await setMemberRole(t.db, { projectId: second.id, userId: person.id, role: "viewer" });
    const secret = newSecretToken("hps_");
    await createSession(t.db, { tokenHash: hashSecretToken(secret), userId: person.id, ttlMs: 3_600_000 });
    const open = async (slug: string) => {
      const socket = new WebSocket(`${web.url}?project=${slug}`, { headers: { cookie: `hp_session=${secret}` } });
      const hello = new Promise<{ type: string; project?: string }>((resolve) => socket.once("message", (raw) => resolve(JSON.parse(raw.toString()))));
      const closed = new Promise<number>((resolve) => socket.once("close", resolve));
      await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
      return { hello: await hello, closed };
    };
    const inFirst = await open("stream-d");
    const inSecond = await open("stream-e");
    expect([inFirst.hello.project, inSecond.hello.project]).toEqual(["stream-d", "stream-e"]);

    await setMemberRole(t.db, { projectId: first.id, userId: person.id, role: null });
    await announceAccessChange(t.db, { userId: person.id });
    expect(await inFirst.closed).toBe(4404);
    // Still a member of the other project: its socket stays open.
    await settle();
    expect(await Promise.race([inSecond.closed, new Promise((r) => setTimeout(() => r("open"), 300))])).toBe("open");

    await setMemberRole(t.db, { projectId: second.id, userId: person.id, role: null });
    await announceAccessChange(t.db, { userId: person.id });
    expect(await inSecond.closed).toBe(4401);
  });
});

describe.runIf(Boolean(process.env.DATABASE_URL))("two web processes on one PostgreSQL", () => {
  test("both deliver every event of a run and its status changes", async () => {
    const second = await openDatabase({ databaseUrl: t.databaseUrl });
    const other = await startWebProcess(second);
    try {
      const start = (await getRunInAnyProject(t.db, { id: runId }))!.lastSeq;
      const a = new Subscriber(web.url);
      const b = new Subscriber(other.url);
      await a.connect(token, [{ type: "subscribe", topic: `run:${runId}`, after: start }, { type: "subscribe", topic: "runs" }]);
      await b.connect(token, [{ type: "subscribe", topic: `run:${runId}`, after: start }, { type: "subscribe", topic: "runs" }]);
      await new Promise((r) => setTimeout(r, 100));
      for (let i = 0; i < 10; i++) await appendRunEvents(second.db, { runId, events: events(10) });
      await expect.poll(() => a.seqs).toEqual(range(start + 1, start + 100));
      await expect.poll(() => b.seqs).toEqual(range(start + 1, start + 100));
      const agentId = (await getRunInAnyProject(t.db, { id: runId }))!.agentId;
      await createRun(second.db, { projectId: DEFAULT_PROJECT_ID, agentId, prompt: "another", source: "test" });
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
