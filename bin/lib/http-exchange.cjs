/**
 * One request of the `hookplane` CLI and its answer, as {status, text, headers}. An http: URL is served by a
 * plain HTTP/1.1 exchange over node:net rather than node:http: loading and first use of node:http
 * (its parser, agent and stream layers) cost ~3 ms on every hook call, and a coding agent pays the
 * CLI's whole run before each tool call (npm run bench:bridge). The exchange is the simplest HTTP
 * has: one request with `connection: close`, one answer (a Content-Length, chunked or
 * until-close body). https: URLs go through node:https.
 *
 * The request is not half-closed after it is sent: a server reads a client's FIN as the caller
 * gone, and would abandon an approval it is holding the answer for.
 *
 * Beside it, what every command's requests to Hookplane share: a JSON POST, the message of an
 * error answer, and the headers that say which machine sends them. Here rather than in a file of
 * their own because the hook path loads this one anyway (bin/hookplane.cjs says why that counts).
 */
"use strict";

/**
 * Resolves {status, text, headers: Map of lower-cased names}, or rejects with an error whose `code` (ECONNREFUSED, ...) or message a
 * person can act on. `onRequest` gets the request in flight; destroying it drops the request.
 */
function exchange(url, { method, headers, body, timeoutMs, onRequest }) {
  const target = new URL(url);
  if (target.protocol === "https:") return overNodeHttps(target, { method, headers, body, timeoutMs, onRequest });
  if (target.protocol !== "http:") return Promise.reject(new Error(`${target.protocol} URLs are not supported (http: or https:)`));
  const fields = { host: target.host, connection: "close", ...headers };
  if (body !== undefined) fields["content-length"] = Buffer.byteLength(body);
  const head = [`${method} ${target.pathname}${target.search} HTTP/1.1`, ...Object.entries(fields).map(([name, value]) => `${name}: ${value}`)].join("\r\n");
  return new Promise((resolve, reject) => {
    const net = require("node:net");
    // URL keeps an IPv6 literal's brackets; connect wants the address alone.
    const socket = net.connect({ host: target.hostname.replace(/^\[(.*)\]$/, "$1"), port: Number(target.port || 80) });
    const chunks = [];
    let received = 0;
    let settled = false;
    const settle = (answer, error) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (error) reject(error);
      else resolve(answer);
    };
    const read = (closed) => {
      try {
        const answer = parseAnswer(Buffer.concat(chunks, received), closed);
        if (answer) settle(answer);
        else if (closed) settle(undefined, new Error("the connection closed before the answer was complete"));
      } catch (error) {
        settle(undefined, error);
      }
    };
    socket.setTimeout(timeoutMs, () => settle(undefined, new Error(`no answer within ${timeoutMs} ms`)));
    socket.on("connect", () => socket.write(`${head}\r\n\r\n${body ?? ""}`));
    socket.on("data", (chunk) => {
      chunks.push(chunk);
      received += chunk.length;
      read(false);
    });
    socket.on("end", () => read(true));
    socket.on("error", (error) => settle(undefined, error));
    socket.on("close", () => settle(undefined, new Error("the connection closed before the answer was complete")));
    onRequest?.(socket);
  });
}

/** The answer in `data` once it is whole, else undefined; throws when `data` is not an HTTP/1.x answer. */
function parseAnswer(data, closed) {
  let start = 0;
  for (;;) {
    const headEnd = data.indexOf("\r\n\r\n", start);
    if (headEnd < 0) return undefined;
    const lines = data.subarray(start, headEnd).toString("latin1").split("\r\n");
    const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]);
    if (!statusLine) throw new Error(`the server's answer is not HTTP/1.1: ${JSON.stringify(lines[0].slice(0, 80))}`);
    const status = Number(statusLine[1]);
    // An interim answer (100 Continue, 103 Early Hints) has no body: the real one follows.
    if (status < 200) {
      start = headEnd + 4;
      continue;
    }
    const fields = new Map();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      if (colon > 0) fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const rest = data.subarray(headEnd + 4);
    let body;
    if (/\bchunked\b/i.test(fields.get("transfer-encoding") ?? "")) body = dechunk(rest);
    else if (fields.has("content-length")) {
      const length = Number(fields.get("content-length"));
      body = rest.length >= length ? rest.subarray(0, length) : undefined;
    } else body = closed ? rest : undefined;
    return body && { status, text: body.toString("utf8"), headers: fields };
  }
}

/** A chunked body once its last chunk is in, else undefined (trailers are ignored). */
function dechunk(data) {
  const parts = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf("\r\n", at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size)) throw new Error("the server's chunked answer is malformed");
    if (size === 0) return Buffer.concat(parts);
    const end = lineEnd + 2 + size;
    if (data.length < end + 2) return undefined;
    parts.push(data.subarray(lineEnd + 2, end));
    at = end + 2;
  }
}

function overNodeHttps(target, { method, headers, body, timeoutMs, onRequest }) {
  const { request } = require("node:https");
  const fields = body === undefined ? headers : { ...headers, "content-length": Buffer.byteLength(body) };
  return new Promise((resolve, reject) => {
    const req = request(target, { method, headers: fields }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8"), headers: new Map(Object.entries(res.headers)) }));
      res.on("error", reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    onRequest?.(req);
    req.end(body);
  });
}

/** POSTs `body` as JSON (GETs when it is undefined); resolves {status, text} or rejects with a reason a person can act on. */
function post(url, headers, body, timeoutMs, onRequest) {
  return exchange(url, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    body,
    timeoutMs,
    onRequest,
  });
}

/** What a person reads of Hookplane's error answer: its `error.message`, else the text's start. */
function errorMessageOf(text) {
  try {
    return JSON.parse(text)?.error?.message ?? text.slice(0, 300);
  } catch {
    return text.slice(0, 300);
  }
}

/**
 * The machine this hook runs on, for the record (the server labels it as reported, not proven):
 * its host name and the OS user, printable ASCII only (a header cannot carry more).
 */
function machineHeaders() {
  const os = require("node:os");
  const printable = (value) => String(value).replace(/[^\x20-\x7e]/g, "?").slice(0, 200);
  const headers = { "x-hookplane-host": printable(os.hostname()) };
  // Run by a CI job (GitHub Actions, GitLab, Buildkite... all set CI): the agent runs headless.
  // Gemini CLI in GitHub Actions gives hooks a stripped environment without CI but with GITHUB_ENV.
  if ((process.env.CI && !/^(0|false)$/i.test(process.env.CI)) || process.env.GITHUB_ENV) headers["x-hookplane-ci"] = "1";
  try {
    headers["x-hookplane-os-user"] = printable(os.userInfo().username);
  } catch {
    // No passwd entry for this uid (some containers): the host alone.
  }
  return headers;
}

module.exports = { errorMessageOf, exchange, machineHeaders, parseAnswer, post };
