/**
 * The `/api/ws` endpoint on an HTTP server: authenticates the upgrade (session cookie or
 * `?token=`) and hands the socket to the hub. Other upgrade paths are left alone, so Next's
 * own (dev HMR) upgrades keep working.
 */
import type { Server } from "node:http";
import { WebSocketServer } from "ws";
import type { DbHandle } from "@/db/client";
import { principalFromHeaders } from "@/lib/auth/principal";
import type { StreamHub } from "./hub";

export function attachWebSocketEndpoint(server: Server, handle: DbHandle, hub: StreamHub): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== "/api/ws") return;
    const headers = { get: (name: string) => (req.headers[name.toLowerCase()] as string | undefined) ?? null };
    // A page of another site must not ride the session cookie (cross-site WebSocket hijacking);
    // token clients (scripts) send no Origin or pass ?token=.
    const origin = headers.get("origin");
    if (origin && !url.searchParams.get("token") && !sameHost(origin, headers.get("host"))) {
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n\r\nCross-origin WebSocket refused\r\n");
      return;
    }
    principalFromHeaders(handle.db, headers, url.searchParams.get("token"))
      .then((principal) => {
        if (!principal) {
          socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\n\r\nSign in or pass ?token=\r\n");
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => hub.attach(ws, principal));
      })
      .catch(() => socket.destroy());
  });
  return wss;
}

function sameHost(origin: string, host: string | null): boolean {
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
