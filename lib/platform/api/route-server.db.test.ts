/**
 * An apiRoute served from node:http (route-server.ts: the bridged hook path's short way): its
 * body rides beside the web Request and its JSON answer is written straight out. Tried from both
 * sides: a good body is read and answered with its length and no-store; bad JSON, a value of the
 * wrong type, a body past the cap and an answer that has no JSON each get the error the same
 * route gives under Next, and the handler never sees the bad ones. The handler reads node's own
 * request (no web Request): headers by any case, a missing one as null, the query, a cookie write
 * from another origin refused, and the signal aborting when the caller leaves (also when it is
 * first read after the caller left: it is made on first read). A body sent in several pieces is
 * read whole; one cut off by the caller leaving reaches no handler; one that streams past the
 * cap without declaring its length is a 413 that closes the connection, read no further.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, expect, test } from "vitest";
import { z } from "zod";
import { installDatabase } from "@/db/client";
import { createTestDatabase, type TestDatabase } from "@/test/database";
import { apiRoute, MAX_BODY_BYTES } from "./route";
import { startRouteServer, type RouteServer } from "./route-server";

let t: TestDatabase;
let server: RouteServer;
const handled: unknown[] = [];
const aborted: boolean[] = [];
/** What /late saw when it first read its signal, after the test let it go on (the caller gone by then). */
const lateSignals: boolean[] = [];
let releaseLate: (() => void) | undefined;

beforeAll(async () => {
  t = await createTestDatabase();
  installDatabase(t);
  const echo = apiRoute({ role: null, body: z.object({ name: z.string(), n: z.number().int() }) }, async ({ body }) => {
    handled.push(body);
    return { hello: body.name, twice: body.n * 2 };
  });
  const noJson = apiRoute({ role: null }, async () => undefined);
  const headers = apiRoute({ role: null, query: z.object({ q: z.string().optional() }) }, async ({ request, query }) => ({
    agent: request.headers.get("X-Hookplane-Agent"),
    lower: request.headers.get("x-hookplane-agent"),
    missing: request.headers.get("x-nobody"),
    has: [request.headers.has("X-HOOKPLANE-AGENT"), request.headers.has("x-nobody")],
    method: request.method,
    path: new URL(request.url).pathname,
    q: query.q ?? null,
  }));
  const held = apiRoute({ role: null }, async ({ request }) => {
    await new Promise<void>((resolve) => request.signal.addEventListener("abort", () => resolve(), { once: true }));
    aborted.push(true);
    return {};
  });
  const late = apiRoute({ role: null }, async ({ request }) => {
    await new Promise<void>((resolve) => (releaseLate = resolve));
    lateSignals.push(request.signal.aborted);
    return {};
  });
  server = await startRouteServer([
    { method: "POST", path: "/late", handler: late },
    { method: "POST", path: "/echo", handler: echo },
    { method: "POST", path: "/no-json", handler: noJson },
    { method: "POST", path: "/headers", handler: headers },
    { method: "POST", path: "/held", handler: held },
  ]);
});
afterAll(async () => {
  await server?.close();
  await t?.drop();
});

const post = (path: string, body: string) => fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });

test("a good body is read once and answered as JSON, with its length and no-store", async () => {
  const res = await post("/echo", JSON.stringify({ name: "ada", n: 21 }));
  const text = await res.text();
  expect(res.status).toBe(200);
  expect(JSON.parse(text)).toEqual({ hello: "ada", twice: 42 });
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
  expect(handled).toEqual([{ name: "ada", n: 21 }]);
});

test("bad JSON, a wrong type and a body past the cap are refused before the handler, as under Next", async () => {
  handled.length = 0;
  const bad = await post("/echo", "{not json");
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("bad_request");
  const wrong = await post("/echo", JSON.stringify({ name: "ada", n: "many" }));
  expect(wrong.status).toBe(422);
  expect(JSON.stringify(await wrong.json())).toContain("n");
  const big = await post("/echo", JSON.stringify({ name: "x".repeat(MAX_BODY_BYTES), n: 1 }));
  expect(big.status).toBe(413);
  expect(handled).toEqual([]);
});

test("an answer that has no JSON is an internal error, not an empty 200", async () => {
  const res = await post("/no-json", "");
  expect(res.status).toBe(500);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("internal");
});

test("the handler reads node's own request: headers by any case, a missing one as null, method, path and query", async () => {
  const res = await fetch(`${server.url}/headers?q=a%20b`, { method: "POST", headers: { "X-Hookplane-Agent": "coder" } });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ agent: "coder", lower: "coder", missing: null, has: [true, false], method: "POST", path: "/headers", q: "a b" });
});

test("a write riding a session cookie from another origin is refused before the handler", async () => {
  const res = await fetch(`${server.url}/headers`, { method: "POST", headers: { origin: "https://evil.example", cookie: "hookplane_session=x" } });
  expect(res.status).toBe(403);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("cross_origin");
});

test("a body sent in pieces is read whole; one the caller cuts off reaches no handler and the server goes on", async () => {
  const url = new URL(`${server.url}/echo`);
  const send = (pieces: string[], length: number, cut: boolean) =>
    new Promise<{ status?: number; body: string }>((resolve) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { "content-type": "application/json", "content-length": length } });
      req.on("response", (res) => {
        let body = "";
        res.on("data", (c) => (body += c)).on("end", () => resolve({ status: res.statusCode, body }));
      });
      req.on("error", () => resolve({ body: "" }));
      const next = (i: number) => {
        if (i === pieces.length) return cut ? setTimeout(() => req.destroy(), 100) : req.end();
        req.write(pieces[i]);
        setTimeout(() => next(i + 1), 20);
      };
      req.flushHeaders();
      next(0);
    });
  handled.length = 0;
  const whole = '{"name":"pieces","n":21}';
  expect(await send([whole.slice(0, 5), whole.slice(5, 13), whole.slice(13)], whole.length, false)).toEqual({ status: 200, body: JSON.stringify({ hello: "pieces", twice: 42 }) });
  expect(handled).toEqual([{ name: "pieces", n: 21 }]);
  // Valid JSON as far as it goes: a reader that took what came before the close would hand it on.
  expect(await send(['{"name":"cut","n":1}'], 40, true)).toEqual({ body: "" });
  await new Promise((r) => setTimeout(r, 100));
  expect(handled).toEqual([{ name: "pieces", n: 21 }]);
  const after = await post("/echo", JSON.stringify({ name: "after", n: 1 }));
  expect(await after.json()).toEqual({ hello: "after", twice: 2 });
});

/** Sends `{}` to `path` and goes away 100 ms later without reading an answer. */
function postThenLeave(path: string): Promise<void> {
  const url = new URL(`${server.url}${path}`);
  return new Promise<void>((resolve) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { "content-type": "application/json", "content-length": 2 } });
    req.on("error", () => resolve());
    req.end("{}", () => setTimeout(() => {
      req.destroy();
      resolve();
    }, 100));
  });
}

test("a caller that leaves aborts the request's signal", async () => {
  aborted.length = 0;
  await postThenLeave("/held");
  await expect.poll(() => aborted).toEqual([true]);
});

test("a signal first read after the caller left is aborted already", async () => {
  lateSignals.length = 0;
  releaseLate = undefined;
  await postThenLeave("/late");
  await expect.poll(() => releaseLate).toBeDefined();
  await new Promise((r) => setTimeout(r, 50));
  releaseLate!();
  await expect.poll(() => lateSignals).toEqual([true]);
});

test("a body that streams past the cap without a declared length is a 413, the connection closed, and no handler sees it", async () => {
  handled.length = 0;
  const url = new URL(`${server.url}/echo`);
  const piece = Buffer.alloc(64 * 1024, "a");
  const outcome = await new Promise<{ status?: number; connection?: string; code?: string; written: number }>((resolve) => {
    let written = 0;
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } });
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      let body = "";
      res.on("data", (c) => (body += c)).on("end", () => resolve({ status: res.statusCode, connection: res.headers.connection, code: JSON.parse(body).error.code, written }));
    });
    req.on("error", () => resolve({ written }));
    const pump = () => {
      // Four times the cap at most: the answer comes as soon as the cap is passed.
      while (!answered && written < 4 * MAX_BODY_BYTES) {
        written += piece.length;
        if (!req.write(piece)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
  expect(outcome).toMatchObject({ status: 413, connection: "close", code: "payload_too_large" });
  expect(outcome.written).toBeLessThan(4 * MAX_BODY_BYTES);
  expect(handled).toEqual([]);
  const after = await post("/echo", JSON.stringify({ name: "after", n: 2 }));
  expect(await after.json()).toEqual({ hello: "after", twice: 4 });
});
