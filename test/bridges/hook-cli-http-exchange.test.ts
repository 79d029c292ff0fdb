/**
 * The `hookplane` CLI's own HTTP/1.1 exchange (bin/lib/http-exchange.cjs): every way a server may
 * frame its answer, answers that are not whole or not HTTP, and the request kept open (not
 * half-closed) while the server holds its answer, as it does during an approval.
 */
import { createRequire } from "node:module";
import net from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { closedPort } from "@/lib/core/hooks/testing/fakes";

type Answer = { status: number; text: string; headers: Map<string, string> };
const { exchange, parseAnswer } = createRequire(import.meta.url)("../../bin/lib/http-exchange.cjs") as {
  exchange(url: string, options: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number }): Promise<Answer>;
  parseAnswer(data: Buffer, closed: boolean): Answer | undefined;
};

const servers: net.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A raw TCP server: `answer` gets each connection once its request (head and body) is in, and what it read. */
async function rawServer(answer: (socket: net.Socket, request: string, halfClosed: () => boolean) => void): Promise<string> {
  const server = net.createServer((socket) => {
    let request = "";
    let ended = false;
    socket.on("end", () => (ended = true));
    socket.on("data", (chunk) => {
      request += chunk.toString("latin1");
      const headEnd = request.indexOf("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(request)?.[1] ?? 0);
      if (headEnd >= 0 && request.length >= headEnd + 4 + length) answer(socket, request, () => ended);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

const post = (base: string, body = '{"a":1}') => exchange(`${base}/api/v1/ingest/claude-code?x=1`, { method: "POST", headers: { authorization: "Bearer t" }, body, timeoutMs: 10_000 });

describe("parseAnswer", () => {
  const parse = (text: string, closed = false) => parseAnswer(Buffer.from(text, "latin1"), closed);

  test.each([
    ["Content-Length", "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}", false, { status: 200, text: "{}" }],
    ["chunked", "HTTP/1.1 403 Forbidden\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4;ext=1\r\n\":1}\r\n0\r\n\r\n", false, { status: 403, text: '{"a":1}' }],
    ["until close", "HTTP/1.0 200 OK\r\n\r\n{\"ok\":true}", true, { status: 200, text: '{"ok":true}' }],
    ["an interim answer first", "HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}", false, { status: 200, text: "{}" }],
    ["UTF-8 in the body", `HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\n${Buffer.from('"é—"').toString("latin1")}`, false, { status: 200, text: '"é—"' }],
  ])("%s", (_, text, closed, expected) => {
    const { headers, ...answer } = parse(text, closed)!;
    expect(answer).toEqual(expected);
    expect(headers).toBeInstanceOf(Map);
  });

  test("its header fields, by lower-cased name, the value trimmed (the agent's fail mode rides there)", () => {
    const answer = parse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Hookplane-Fail-Mode:  closed \r\n\r\n{}")!;
    expect(answer.headers.get("x-hookplane-fail-mode")).toBe("closed");
    expect(answer.headers.get("content-length")).toBe("2");
  });

  test.each([
    ["no end of head yet", "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n"],
    ["a short Content-Length body", "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n{}"],
    ["a chunked body without its last chunk", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n"],
    ["an until-close body while open", "HTTP/1.1 200 OK\r\n\r\n{}"],
  ])("not whole: %s", (_, text) => {
    expect(parse(text)).toBeUndefined();
  });

  test("not HTTP, or a malformed chunk: an error that says so", () => {
    expect(() => parse("SSH-2.0-OpenSSH\r\n\r\n")).toThrow(/not HTTP\/1.1: "SSH-2.0-OpenSSH"/);
    expect(() => parse("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n")).toThrow(/chunked answer is malformed/);
  });
});

describe("exchange", () => {
  test("sends one HTTP/1.1 request with its path, query, headers and body, and reads a chunked answer written in pieces", async () => {
    let seen = "";
    const base = await rawServer((socket, request) => {
      seen = request;
      socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n");
      setTimeout(() => socket.end("2\r\n{}\r\n0\r\n\r\n"), 20);
    });
    expect(await post(base)).toMatchObject({ status: 200, text: "{}" });
    const [head, body] = seen.split("\r\n\r\n");
    expect(head.split("\r\n")).toEqual([
      "POST /api/v1/ingest/claude-code?x=1 HTTP/1.1",
      `host: ${base.slice("http://".length)}`,
      "connection: close",
      "authorization: Bearer t",
      "content-length: 7",
    ]);
    expect(body).toBe('{"a":1}');
  });

  test("the request stays open while the server holds its answer (a half-close would read as the caller gone)", async () => {
    let halfClosedBeforeAnswer: boolean | undefined;
    const base = await rawServer((socket, _request, halfClosed) => {
      setTimeout(() => {
        halfClosedBeforeAnswer = halfClosed();
        socket.end("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}");
      }, 100);
    });
    expect(await post(base)).toMatchObject({ status: 200, text: "{}" });
    expect(halfClosedBeforeAnswer).toBe(false);
  });

  test("an answer cut short, a refused connection, a server that never answers: each rejects with why", async () => {
    const cut = await rawServer((socket) => socket.end("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n{}"));
    await expect(post(cut)).rejects.toThrow("the connection closed before the answer was complete");
    await expect(post(`http://127.0.0.1:${await closedPort()}`)).rejects.toMatchObject({ code: "ECONNREFUSED" });
    const silent = await rawServer(() => {});
    await expect(exchange(silent, { method: "GET", headers: {}, timeoutMs: 200 })).rejects.toThrow("no answer within 200 ms");
    await expect(exchange("ftp://127.0.0.1/x", { method: "GET", headers: {}, timeoutMs: 200 })).rejects.toThrow("ftp: URLs are not supported");
  });
});
