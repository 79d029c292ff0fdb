/**
 * The `/api/ws` endpoint on an HTTP server: authenticates the upgrade (session cookie or
 * `?token=`) and hands the socket to the hub with the credential it stands on, so the hub can
 * close it when that credential ends. Other upgrade paths are left alone, so Next's own (dev HMR)
 * upgrades keep working.
 */
import type { Server } from "node:http";
import { WebSocketServer } from "ws";
import type { DbHandle } from "@/db/client";
import { credentialFromHeaders, principalFromCredential } from "@/lib/auth/principal";
import { hashSecretToken } from "@/lib/auth/secret-token";
import { originVerdict } from "@/lib/security/same-origin";
import type { StreamHub } from "./hub";

export function attachWebSocketEndpoint(server: Server, handle: DbHandle, hub: StreamHub): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== "/api/ws") return;
    const headers = { get: (name: string) => (req.headers[name.toLowerCase()] as string | undefined) ?? null };
    const credential = credentialFromHeaders(headers, url.searchParams.get("token"));
    // A page of another site must not ride the session cookie (cross-site WebSocket hijacking);
    // token clients (scripts) send no Origin or pass ?token=.
    if (credential?.kind !== "token" && originVerdict(headers) === "foreign") {
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n\r\nCross-origin WebSocket refused\r\n");
      return;
    }
    principalFromCredential(handle.db, credential)
      .then((principal) => {
        if (!principal || !credential) {
          socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\n\r\nSign in or pass ?token=\r\n");
          return;
        }
        const grounds = {
          sessionHash: credential.kind === "session" ? hashSecretToken(credential.secret) : undefined,
          recheck: () => principalFromCredential(handle.db, credential),
        };
        wss.handleUpgrade(req, socket, head, (ws) => hub.attach(ws, principal, grounds));
      })
      .catch(() => socket.destroy());
  });
  return wss;
}
