"use client";

/**
 * One WebSocket to /api/ws per hook user, re-opened with backoff. `onOpen` re-subscribes, so a
 * run stream resumes from the last seq it saw (`after`): no gap and no duplicate on reconnect.
 */
import { useEffect, useRef, useState } from "react";
import { parseServerMessage, type ClientMessage, type ServerMessage } from "@/lib/platform/stream/protocol";

/** `connecting` until the first open; after a drop, `closed` then `reconnecting`. */
export type SocketState = "connecting" | "open" | "reconnecting" | "closed";

/**
 * Sent on `window` when the server closed a socket because the session behind it ended (signed
 * out elsewhere, removed, demoted): the page can no longer do anything (SessionEndedBanner).
 */
export const SESSION_ENDED_EVENT = "hookplane:session-ended";
/** Sent on `window` when the user left this page's project but can still open others (4404). */
export const PROJECT_ENDED_EVENT = "hookplane:project-ended";

export function useLiveSocket(onOpen: (send: (msg: ClientMessage) => void) => void, onMessage: (msg: ServerMessage) => void) {
  const [state, setState] = useState<SocketState>("connecting");
  const handlers = useRef({ onOpen, onMessage });
  handlers.current = { onOpen, onMessage };

  useEffect(() => {
    let socket: WebSocket | undefined;
    let retry = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let disposed = false;
    let opened = false;
    const connect = () => {
      setState(opened ? "reconnecting" : "connecting");
      const protocol = location.protocol === "https:" ? "wss:" : "ws:";
      socket = new WebSocket(`${protocol}//${location.host}/api/ws`);
      socket.onopen = () => {
        retry = 0;
        opened = true;
        setState("open");
        handlers.current.onOpen((msg) => socket?.send(JSON.stringify(msg)));
      };
      socket.onmessage = (event) => {
        // A frame this client does not understand is ignored.
        const message = parseServerMessage(String(event.data));
        if (message) handlers.current.onMessage(message);
      };
      socket.onclose = (event) => {
        setState("closed");
        // 4401: the session was signed out, revoked or removed; reconnecting would only be refused.
        if (event.code === 4401 && !disposed) window.dispatchEvent(new Event(SESSION_ENDED_EVENT));
        // 4404: removed from this page's project; reconnecting would stream another project under it.
        if (event.code === 4404 && !disposed) window.dispatchEvent(new Event(PROJECT_ENDED_EVENT));
        if (disposed || event.code === 4401 || event.code === 4404) return;
        // 4403: the user's role changed; come back at once with the new one.
        if (event.code === 4403) retry = 0;
        timer = setTimeout(connect, Math.min(10_000, 500 * 2 ** retry++));
      };
    };
    connect();
    return () => {
      disposed = true;
      clearTimeout(timer);
      socket?.close();
    };
  }, []);

  return state;
}
