/**
 * The `/api/ws` endpoint on an HTTP server: authenticates the upgrade (session cookie or
 * `?token=`) in a project (`?project=<slug>`, else the `hp_project` cookie the dashboard's
 * switcher sets, else the person's first project; a token's own project) and hands the socket to
 * the hub with the credential it stands on, so the hub can close it when that credential ends. Every upgrade of the server comes through here: one that
 * `passThrough` takes (Next's dev HMR) goes on, any other path is refused with a 400 and closed,
 * so no socket is left unanswered. Sockets that stop answering pings are cut, so a half-open
 * client does not hold a subscription forever.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import type { DbHandle } from "@/db/client";
import { credentialFromHeaders, principalFromCredential } from "@/lib/platform/auth/principal";
import { accessRefusal } from "@/lib/platform/auth/roles";
import { hashSecretToken } from "@/lib/platform/auth/secret-token";
import { AppError } from "@/lib/platform/api/app-error";
import { refuseUpgrade } from "@/lib/platform/api/request-guard";
import { originVerdict } from "@/lib/platform/security/same-origin";
import type { StreamHub } from "./hub";

export const WS_PATH = "/api/ws";
/** The largest client message: a subscribe is a few dozen bytes. */
export const WS_MAX_PAYLOAD = 64 * 1024;

export interface WebSocketEndpointOptions {
  /** Takes an upgrade to another path (returns true) or leaves it to be refused. */
  passThrough?: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
  /** How often every socket is pinged; one that did not answer the previous ping is cut. */
  heartbeatMs?: number;
}

export function attachWebSocketEndpoint(server: Server, handle: DbHandle, hub: StreamHub, options: WebSocketEndpointOptions = {}): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_PAYLOAD });
  server.on("upgrade", (req, socket, head) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://localhost");
    } catch {
      return refuseUpgrade(socket, 400, "Bad upgrade request");
    }
    if (url.pathname !== WS_PATH) {
      if (options.passThrough?.(req, socket, head)) return;
      return refuseUpgrade(socket, 400, `No WebSocket at ${url.pathname.slice(0, 100)}; the stream is ${WS_PATH}`);
    }
    const headers = { get: (name: string) => (req.headers[name.toLowerCase()] as string | undefined) ?? null };
    const credential = credentialFromHeaders(headers, url.searchParams.get("token"), url.searchParams.get("project"));
    // A page of another site must not ride the session cookie (cross-site WebSocket hijacking);
    // token clients (scripts) send no Origin or pass ?token=.
    if (credential?.kind !== "token" && originVerdict(headers) === "foreign") {
      return refuseUpgrade(socket, 403, "Cross-origin WebSocket refused");
    }
    principalFromCredential(handle.db, credential)
      .then((principal) => {
        if (!principal || !credential) return refuseUpgrade(socket, 401, "Sign in or pass ?token=");
        // A bridge credential sends its person's hook events and reads nothing (roles.ts).
        if (principal.bridge) return refuseUpgrade(socket, 403, accessRefusal(principal, "viewer"));
        // Rechecked in the project it was opened in: when the membership there ends, the
        // credential no longer holds for this socket (it is not moved to another project).
        const pinned = { ...credential, project: { explicit: principal.projectSlug } };
        const grounds = {
          sessionHash: credential.kind === "session" ? hashSecretToken(credential.secret) : undefined,
          recheck: () => principalFromCredential(handle.db, pinned).catch((error) => (isRefusal(error) ? undefined : Promise.reject(error))),
          // A person's session may still open their other projects; a token has only its own.
          holdsElsewhere: async () =>
            credential.kind === "session" && Boolean(await principalFromCredential(handle.db, { ...credential, project: {} }).catch(() => undefined)),
        };
        wss.handleUpgrade(req, socket, head, (ws) => {
          watchLiveness(ws);
          hub.attach(ws, principal, grounds);
        });
      })
      // A project the caller cannot reach (404) or a token naming another project (403).
      .catch((error) => (isRefusal(error) ? refuseUpgrade(socket, error.status === 404 ? 404 : 403, error.message) : socket.destroy()));
  });
  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (!alive.get(ws)) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, options.heartbeatMs ?? 30_000);
  heartbeat.unref();
  wss.on("close", () => clearInterval(heartbeat));
  return wss;
}

/** A refusal of the credential in the project asked for, as opposed to a failure to check it. */
function isRefusal(error: unknown): error is AppError {
  return error instanceof AppError && error.status < 500;
}

const alive = new WeakMap<WebSocket, boolean>();

function watchLiveness(ws: WebSocket) {
  alive.set(ws, true);
  ws.on("pong", () => alive.set(ws, true));
}
