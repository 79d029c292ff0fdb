"use client";

/**
 * One WebSocket to /api/ws per hook user, re-opened with backoff. `onOpen` re-subscribes, so a
 * run stream resumes from the last seq it saw (`after`): no gap and no duplicate on reconnect.
 */
import { useEffect, useRef, useState } from "react";

export type SocketState = "connecting" | "open" | "closed";

export function useLiveSocket(onOpen: (send: (msg: unknown) => void) => void, onMessage: (msg: Record<string, unknown>) => void) {
  const [state, setState] = useState<SocketState>("connecting");
  const handlers = useRef({ onOpen, onMessage });
  handlers.current = { onOpen, onMessage };

  useEffect(() => {
    let socket: WebSocket | undefined;
    let retry = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let disposed = false;
    const connect = () => {
      setState("connecting");
      const protocol = location.protocol === "https:" ? "wss:" : "ws:";
      socket = new WebSocket(`${protocol}//${location.host}/api/ws`);
      socket.onopen = () => {
        retry = 0;
        setState("open");
        handlers.current.onOpen((msg) => socket?.send(JSON.stringify(msg)));
      };
      socket.onmessage = (event) => {
        try {
          handlers.current.onMessage(JSON.parse(String(event.data)));
        } catch {
          // ignore a malformed frame
        }
      };
      socket.onclose = () => {
        setState("closed");
        if (disposed) return;
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
