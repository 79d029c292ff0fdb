/**
 * Test support: what the fake model APIs (fake-anthropic-api.ts, fake-gemini-api.ts,
 * fake-openai-responses.ts) share. A loopback server that keeps every request parsed (and, when the
 * variable `logEnv` names a file, appends it there: handy when capturing fixtures by hand), JSON and
 * SSE answers, and serving from the command line. Each fake keeps only its API's script and shapes.
 */
import { appendFileSync } from "node:fs";
import type http from "node:http";
import { startServer } from "@/lib/core/hooks/testing/fakes";

export interface FakeModelApi {
  url: string;
  requests: { path: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

export interface ModelApiRequest {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

export async function startFakeModelApi(logEnv: string, answer: (req: ModelApiRequest, res: http.ServerResponse) => void, port = 0): Promise<FakeModelApi> {
  const requests: FakeModelApi["requests"] = [];
  const server = await startServer((raw, res) => {
    const path = new URL(raw.url || "/", "http://localhost").pathname;
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw.body || "{}");
    } catch {
      /* not JSON: the fake answers it like any unknown request */
    }
    requests.push({ path, body });
    if (process.env[logEnv]) appendFileSync(process.env[logEnv], `${JSON.stringify({ path, body })}\n`);
    answer({ method: raw.method, path, body }, res);
  }, port);
  return { url: server.url, requests, close: server.close };
}

/** Starts a text/event-stream answer; each call writes one `event:`/`data:` pair. End it with res.end(). */
export function sseStream(res: http.ServerResponse, headers: http.OutgoingHttpHeaders = {}): (event: string, data: unknown) => void {
  res.writeHead(200, { "content-type": "text/event-stream", ...headers });
  return (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** `tsx test/bridges/<fake>.ts [port]`: serve until killed, printing the URL. */
export function serveWhenRunDirectly(moduleUrl: string, start: (port: number) => Promise<{ url: string }>) {
  if (process.argv[1] && moduleUrl.endsWith(process.argv[1].split("/").pop()!)) {
    void start(Number(process.argv[2] ?? 0)).then((fake) => console.log(fake.url));
  }
}
