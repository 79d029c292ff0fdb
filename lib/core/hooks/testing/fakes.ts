/**
 * Test-only helpers for the hook runtime's suites: canonical hooks parsed through the real schema,
 * events, fake ports, and a loopback HTTP server. Never imported by the runtime itself.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { hookEvent, type HookEvent, type UntypedHookEvent } from "../event";
import type { EventName } from "../events";
import type { ApprovalDecision, ApprovalPort, ApprovalRequest } from "../ports";
import type { RuntimeHook } from "../runtime-types";
import { hookSpecSchema, type HookSpecInput } from "../spec";

/** A hook as the API would store it: parsed, defaults applied. Throws on an invalid spec. */
export function hook(input: Partial<HookSpecInput> & Pick<HookSpecInput, "id" | "event" | "action">, version = 1): RuntimeHook {
  return { ...hookSpecSchema.parse(input), version };
}

export function event(type: EventName, data: Record<string, unknown> = {}, extra: Partial<HookEvent> = {}): HookEvent {
  return hookEvent({ type, runId: "run-1", agentName: "price-checker", ts: Date.parse("2024-01-15T09:05:30Z"), data, ...(extra as Partial<UntypedHookEvent>) });
}

export function toolPre(toolName: string, toolInput: Record<string, unknown> = {}, extra: Partial<HookEvent> = {}): HookEvent {
  return event("tool.pre", { toolName, toolInput, toolCallId: "call-1" }, extra);
}

export interface RecordingApprovals extends ApprovalPort {
  requests: ApprovalRequest[];
  signals: (AbortSignal | undefined)[];
}

/** Answers every request with `answer` after `delayMs`; `undefined` never answers. */
export function approvals(answer: ApprovalDecision | undefined, delayMs = 0): RecordingApprovals {
  const port: RecordingApprovals = {
    requests: [],
    signals: [],
    request(req, signal) {
      port.requests.push(req);
      port.signals.push(signal);
      if (!answer) return new Promise(() => {});
      return new Promise((resolve) => setTimeout(() => resolve(answer), delayMs));
    },
  };
  return port;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface LocalServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A server on 127.0.0.1 (`port`, or any free one); `handle` answers after the body was read. */
export async function startServer(
  handle: (req: RecordedRequest, res: http.ServerResponse) => void | Promise<void>,
  listenPort = 0,
): Promise<LocalServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const recorded = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() };
      requests.push(recorded);
      void handle(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(listenPort, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port nothing listens on: the server is opened and closed to reserve a real number. */
export async function closedPort(): Promise<number> {
  const s = await startServer(() => {});
  await s.close();
  return s.port;
}

export function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
