"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { apiFetch } from "@/lib/platform/api/api-fetch";
import { useLiveSocket } from "@/lib/platform/stream/use-live-socket";

/** How many approvals wait for a person, kept live by the approvals topic. */
export function usePendingApprovalCount(): number | undefined {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ["approvals", "pending-count"],
    queryFn: () => apiFetch<{ items: unknown[]; nextCursor: string | null }>("/api/v1/approvals?status=pending&limit=200"),
  });
  useLiveSocket(
    (send) => send({ type: "subscribe", topic: "approvals" }),
    (msg) => {
      if (msg.type === "approval") void queryClient.invalidateQueries({ queryKey: ["approvals", "pending-count"] });
    },
  );
  return query.data?.items.length;
}
