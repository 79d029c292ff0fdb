"use client";

import { useRouter } from "next/navigation";
import { useRef } from "react";
import { useLiveSocket } from "@/lib/platform/stream/use-live-socket";

/**
 * Re-renders a server page when a run or an approval changes (live over the socket), at most once
 * per `delayMs`: a busy project's steady stream of changes refreshes the page every `delayMs`
 * rather than never (a debounce would keep postponing it). For pages that list runs without a
 * client query.
 */
export function RefreshOnRunChange({ delayMs = 1000 }: { delayMs?: number }) {
  const router = useRouter();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useLiveSocket(
    (send) => {
      send({ type: "subscribe", topic: "runs" });
      send({ type: "subscribe", topic: "approvals" });
    },
    (msg) => {
      if (msg.type !== "run" && msg.type !== "approval") return;
      if (timer.current !== undefined) return;
      timer.current = setTimeout(() => {
        timer.current = undefined;
        router.refresh();
      }, delayMs);
    },
  );
  return null;
}
