"use client";

import { useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useRef } from "react";
import { useLiveSocket } from "@/lib/platform/stream/use-live-socket";

/**
 * Refetches the queries under `queryKey` whenever a run changes, live over the socket. Coalesced:
 * a burst of changes within `delayMs` is one request.
 */
export function useRunChangeRefresh(queryKey: QueryKey, delayMs: number) {
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useLiveSocket(
    (send) => send({ type: "subscribe", topic: "runs" }),
    (msg) => {
      if (msg.type !== "run") return;
      clearTimeout(timer.current);
      timer.current = setTimeout(() => queryClient.invalidateQueries({ queryKey }), delayMs);
    },
  );
}
