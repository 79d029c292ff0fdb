import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolRegistry } from "./tool-registry";

let server: http.Server;
let base: string;
const received: { method?: string; body: string; header?: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ method: req.method, body, header: req.headers["x-test"] as string | undefined });
      if (req.url === "/big") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("z".repeat(10_000));
      } else if (req.url === "/slow") {
        setTimeout(() => res.end("late"), 2000);
      } else if (req.url === "/missing") {
        res.writeHead(404);
        res.end("not here");
      } else if (req.url === "/redirect") {
        res.writeHead(302, { location: "http://169.254.169.254/" });
        res.end();
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ok: true }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("http_request tool", () => {
  it.each([
    ["loopback literal", () => `${base}/`],
    ["localhost by name (DNS check)", () => base.replace("127.0.0.1", "localhost") + "/"],
    ["IPv6 loopback", () => "http://[::1]:9/"],
    ["cloud metadata", () => "http://169.254.169.254/latest/meta-data/"],
    ["private LAN", () => "http://10.0.0.1/"],
    ["IPv4-mapped IPv6", () => "http://[::ffff:127.0.0.1]:9/"],
  ])("refuses %s by default", async (_label, url) => {
    const before = received.length;
    const tools = createToolRegistry({ workspaceDir: "/tmp" });
    const result = await tools.call("http_request", { url: url() });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^refused: \S+ is not an allowed destination \(private, loopback/);
    expect(received.length).toBe(before);
  });

  it("refuses non-http schemes", async () => {
    const tools = createToolRegistry({ workspaceDir: "/tmp", allowPrivateNetwork: true });
    const result = await tools.call("http_request", { url: "file:///etc/passwd" });
    expect(result).toEqual({ output: "refused: only http and https URLs (got file:)", isError: true });
  });

  it("makes the request when private networks are allowed", async () => {
    const tools = createToolRegistry({ workspaceDir: "/tmp", allowPrivateNetwork: true });
    const result = await tools.call("http_request", {
      url: `${base}/echo`,
      method: "POST",
      headers: { "x-test": "yes" },
      body: "payload",
    });
    expect(result).toEqual({ output: 'HTTP 200 OK\ncontent-type: application/json\n\n{"ok":true}', isError: false });
    expect(received.at(-1)).toEqual({ method: "POST", body: "payload", header: "yes" });
  });

  it("reports 4xx as an error and does not follow redirects", async () => {
    const tools = createToolRegistry({ workspaceDir: "/tmp", allowPrivateNetwork: true });
    const missing = await tools.call("http_request", { url: `${base}/missing` });
    expect(missing).toEqual({ output: "HTTP 404 Not Found\n\nnot here", isError: true });
    const redirect = await tools.call("http_request", { url: `${base}/redirect` });
    expect(redirect.output).toMatch(/^HTTP 302 Found\nlocation: http:\/\/169\.254\.169\.254\//);
  });

  it("caps the response size", async () => {
    const tools = createToolRegistry({ workspaceDir: "/tmp", allowPrivateNetwork: true, outputCap: 50 });
    const result = await tools.call("http_request", { url: `${base}/big` });
    expect(result.output).toContain("z".repeat(50) + "\n[output truncated:");
    expect(result.output).not.toContain("z".repeat(51));
  });

  it("times out", async () => {
    const tools = createToolRegistry({ workspaceDir: "/tmp", allowPrivateNetwork: true, httpTimeoutMs: 200 });
    const result = await tools.call("http_request", { url: `${base}/slow` });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^timed out after 200 ms/);
  });
});
