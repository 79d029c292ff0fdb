/**
 * The socket-level defences, over real HTTP: the request guard server.ts puts before Next
 * (methods, body cap counted while streaming, action decode failures) and the upgrade and
 * WebSocket handling of the stream endpoint, with hostile clients.
 */
import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { installDatabase } from "@/db/client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { issueApiToken } from "@/lib/platform/auth/account-service";
import { DEFAULT_PROJECT_ID } from "@/db/schema";
import { StreamHub, MAX_TOPICS } from "@/lib/platform/stream/hub";
import { attachWebSocketEndpoint, WS_MAX_PAYLOAD } from "@/lib/platform/stream/ws-endpoint";
import { guardRequest } from "./request-guard";

const CAP = 64 * 1024;
let t: TestDatabase;
let server: Server;
let hub: StreamHub;
let base: string;
let port: number;
let token: string;
const seen: { method: string; bytes: number }[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  token = (await issueApiToken(t.db, { name: "ws", role: "viewer", actor: "test" })).token;
  hub = new StreamHub(t);
  await hub.start();
  server = createServer((req, res) => {
    void guardRequest(req, res, { maxBodyBytes: CAP }).then(async (pass) => {
      if (!pass) return;
      // Stands in for Next: reads the whole body, and fails an action the way Next does.
      let bytes = 0;
      for await (const chunk of req) bytes += (chunk as Buffer).length;
      seen.push({ method: req.method!, bytes });
      if (req.headers["next-action"]) {
        res.statusCode = 500;
        return res.end("flight error");
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ bytes }));
    });
  });
  // Long enough for a busy test process to answer a ping in time; short enough to see a silent client cut.
  attachWebSocketEndpoint(server, t, hub, { heartbeatMs: 1500 });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await hub.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.drop();
});

function send(method: string, path: string, options: { headers?: Record<string, string>; chunks?: number; chunkSize?: number } = {}) {
  return new Promise<{ status: number; body: string; headers: IncomingMessage["headers"]; written: number }>((resolve, reject) => {
    let written = 0;
    const req = request(`${base}${path}`, { method, headers: options.headers, agent: false }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, body, headers: res.headers, written }));
    });
    req.on("error", reject);
    const chunk = Buffer.alloc(options.chunkSize ?? 16 * 1024, "a");
    let left = options.chunks ?? 0;
    const pump = () => {
      while (left > 0) {
        left--;
        written += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    req.on("response", () => (left = 0));
    pump();
  });
}

describe("the request guard", () => {
  test("a method outside HTTP's ordinary set is a 405 that says which are allowed", async () => {
    for (const method of ["TRACE", "PROPFIND", "MKCOL"]) {
      const res = await send(method, "/api/v1/agents");
      expect(res.status).toBe(405);
      expect(JSON.parse(res.body).error.code).toBe("method_not_allowed");
      expect(res.headers.allow).toContain("GET");
    }
    expect(seen.filter((s) => !["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"].includes(s.method))).toEqual([]);
    // A method Node's parser does not know never reaches a handler: it answers 400 and closes.
    expect((await send("FOO", "/api/v1/agents")).status).toBe(400);
  });

  test("a declared body over the cap is a 413 before a byte of it is read", async () => {
    const before = seen.length;
    const res = await send("POST", "/api/v1/setup", { headers: { "content-length": String(50 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.code).toBe("payload_too_large");
    expect(seen.length).toBe(before);
  });

  test("a chunked body is counted as it streams: past the cap a 413, and the handler never sees it", async () => {
    const before = seen.length;
    const res = await send("POST", "/api/v1/setup", { headers: { "transfer-encoding": "chunked" }, chunks: 200, chunkSize: 16 * 1024 });
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe("close");
    expect(seen.length).toBe(before);
  });

  test("a body within the cap reaches the handler whole", async () => {
    const res = await send("POST", "/api/v1/agents", { headers: { "transfer-encoding": "chunked" }, chunks: 3, chunkSize: 16 * 1024 });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).bytes).toBe(3 * 16 * 1024);
  });

  test("a server action Next cannot decode is a 400, not a 500", async () => {
    const res = await send("POST", "/agents/new", { headers: { "next-action": "abc", "content-type": "text/plain" }, chunks: 1, chunkSize: 10 });
    expect(res.status).toBe(400);
    const api = await send("POST", "/api/v1/agents", { chunks: 1, chunkSize: 10 });
    expect(api.status).toBe(200);
  });
});

function rawUpgrade(path: string): Promise<{ response: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, "127.0.0.1");
    let response = "";
    socket.on("data", (d) => (response += d));
    socket.on("close", () => resolve({ response, closed: true }));
    socket.on("error", () => {});
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  });
}

async function openConnections(): Promise<number> {
  return new Promise((resolve) => server.getConnections((_e, n) => resolve(n)));
}

describe("upgrades and the stream socket", () => {
  test("an upgrade to any other path is refused with a 400 and closed, so none is left holding a socket", async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => rawUpgrade(i % 2 ? "/_next/hmr" : `/api/v1/agents?${i}`)));
    for (const answer of answers) {
      expect(answer.response).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer.closed).toBe(true);
    }
    await expect.poll(openConnections).toBe(0);
  });

  test("without a token or session the stream is a 401, closed", async () => {
    const answer = await rawUpgrade("/api/ws");
    expect(answer.response).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer.closed).toBe(true);
  });

  function openSocket(): Promise<{ ws: WebSocket; next: () => Promise<Record<string, unknown>> }> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/ws?token=${token}`);
    const queue: Record<string, unknown>[] = [];
    const waiting: ((m: Record<string, unknown>) => void)[] = [];
    ws.on("message", (raw) => {
      const message = JSON.parse(raw.toString());
      const waiter = waiting.shift();
      if (waiter) waiter(message);
      else queue.push(message);
    });
    const next = () => new Promise<Record<string, unknown>>((resolve) => (queue.length ? resolve(queue.shift()!) : waiting.push(resolve)));
    return new Promise((resolve, reject) => {
      ws.once("open", () => resolve({ ws, next }));
      ws.once("error", reject);
    });
  }

  test("bad messages are answered with an error and the socket stays usable", async () => {
    const { ws, next } = await openSocket();
    expect(await next()).toMatchObject({ type: "hello" });
    const bad = [
      "not json",
      "{",
      "null",
      "[]",
      JSON.stringify({ type: "explode" }),
      JSON.stringify({ type: "subscribe", topic: "run:------------------------------------" }),
      JSON.stringify({ type: "subscribe", topic: "run:00000000-0000-4000-8000-000000000000", after: 2 ** 40 }),
      JSON.stringify({ type: "subscribe", topic: "run:\u0000" }),
      JSON.stringify({ type: "subscribe", topic: "approvals", after: -1 }),
    ];
    for (const message of bad) {
      ws.send(message);
      expect(await next()).toMatchObject({ type: "error" });
    }
    ws.send(Buffer.from([0xff, 0x00, 0xfe]));
    expect(await next()).toMatchObject({ type: "error" });
    ws.send(JSON.stringify({ type: "ping" }));
    expect(await next()).toEqual({ type: "pong" });
    ws.close();
  });

  test("one socket subscribes to at most MAX_TOPICS topics", async () => {
    // Runs of the token's project: a run the socket cannot see is refused before the cap counts.
    const [agent] = (await t.execute("insert into agents (project_id, name, model, max_turns, timeout_ms) values ($1, 'topics', 'scripted', 1, 1000) returning id", [DEFAULT_PROJECT_ID])).rows as { id: string }[];
    const runIds = (await t.execute("insert into runs (project_id, agent_id, prompt) select $1, $2, 'p' from generate_series(1, $3::int) returning id", [DEFAULT_PROJECT_ID, agent.id, MAX_TOPICS])).rows.map((r) => String(r.id));
    const { ws, next } = await openSocket();
    await next();
    for (const id of runIds) ws.send(JSON.stringify({ type: "subscribe", topic: `run:${id}` }));
    for (let i = 0; i < MAX_TOPICS; i++) {
      let message = await next();
      while (message.type !== "subscribed") message = await next();
    }
    ws.send(JSON.stringify({ type: "subscribe", topic: "runs" }));
    let message = await next();
    while (message.type === "run") message = await next();
    expect(message).toMatchObject({ type: "error", message: expect.stringMatching(/at most/) });
    ws.close();
  });

  test("a frame over the limit closes the socket (1009); the server goes on", async () => {
    const { ws, next } = await openSocket();
    await next();
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.send("x".repeat(WS_MAX_PAYLOAD + 1));
    expect(await closed).toBe(1009);
    const again = await openSocket();
    expect(await again.next()).toMatchObject({ type: "hello" });
    again.ws.close();
  });

  test("a client that stops answering pings is cut", async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/ws?token=${token}`, { autoPong: false });
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    await new Promise((resolve) => ws.once("open", resolve));
    expect(await closed).toBe(1006);
    await expect.poll(() => hub.size).toBe(0);
  });
});
