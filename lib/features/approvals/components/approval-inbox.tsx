"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { EmptyState } from "@/components/ui/empty-state";
import { apiFetch } from "@/lib/platform/api/api-fetch";
import { ApprovalCard, type ApprovalViewer } from "./approval-card";
import type { ApprovalResponse } from "../schema";
import { formatTime } from "@/components/ui/format-time";
import { useLiveSocket } from "@/lib/platform/stream/use-live-socket";
import { DataTable } from "@/components/ui/data-table";


export function ApprovalInbox({ viewer }: { viewer: ApprovalViewer }) {
  const queryClient = useQueryClient();
  const pending = useQuery({
    queryKey: ["approvals", "pending"],
    queryFn: () => apiFetch<{ items: ApprovalResponse[] }>("/api/v1/approvals?status=pending&limit=200"),
  });
  const history = useQuery({
    queryKey: ["approvals", "all"],
    queryFn: () => apiFetch<{ items: ApprovalResponse[] }>("/api/v1/approvals?limit=50"),
  });
  useLiveSocket(
    (send) => send({ type: "subscribe", topic: "approvals" }),
    (msg) => {
      if (msg.type === "approval") void queryClient.invalidateQueries({ queryKey: ["approvals"] });
    },
  );
  const settled = (history.data?.items ?? []).filter((a) => a.status !== "pending");
  return (
    <div className="space-y-8">
      <section className="space-y-3" aria-labelledby="pending-title">
        <h2 id="pending-title" className="text-sm font-semibold">
          Waiting for a decision
        </h2>
        {pending.isPending ? (
          <div className="h-24 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" />
        ) : (pending.data?.items.length ?? 0) === 0 ? (
          <EmptyState title="Nothing waits for you">Actions that an approve hook holds show up here, live.</EmptyState>
        ) : (
          pending.data!.items.map((approval) => (
            <div key={approval.id} className="space-y-1">
              <ApprovalCard approval={approval} viewer={viewer} showContext />
              <Link href={`/runs/${approval.runId}`} className="text-xs text-indigo-600 hover:underline">
                Open the run
              </Link>
            </div>
          ))
        )}
      </section>
      <section aria-labelledby="history-title">
        <h2 id="history-title" className="mb-2 text-sm font-semibold">
          Decisions
        </h2>
        {settled.length === 0 ? (
          <p className="text-sm text-zinc-500">No decisions yet.</p>
        ) : (
          <DataTable variant="plain" testId="approval-history" columns={[{ label: "Tool" }, { label: "Agent" }, { label: "Outcome" }, { label: "Who / through" }, { label: "When" }, { label: "Reason" }]}>
              {settled.map((a) => (
                <tr key={a.id} className="border-t border-zinc-100 dark:border-zinc-800">
                  <td className="py-1.5 font-mono text-xs">{a.toolName}</td>
                  <td className="py-1.5">{a.agentName}</td>
                  <td className="py-1.5">
                    {a.status === "timed_out" ? "timed out" : a.status === "abandoned" ? "abandoned (nobody waits)" : a.status}
                    {a.approvedInput && (
                      <span className="ml-1 text-xs text-amber-700 dark:text-amber-400" title={`Ran with ${JSON.stringify(a.approvedInput)} instead of ${JSON.stringify(a.toolInput)}`} data-testid="approval-edited">
                        with an edited input
                      </span>
                    )}
                  </td>
                  <td className="py-1.5">{a.decidedBy ?? "—"} {a.decidedVia && <span className="text-zinc-500">via {a.decidedVia}</span>}</td>
                  <td className="py-1.5 text-xs text-zinc-500">{formatTime(a.decidedAt)}</td>
                  <td className="py-1.5 text-xs">{a.reason}</td>
                </tr>
              ))}
            </DataTable>
        )}
      </section>
    </div>
  );
}
