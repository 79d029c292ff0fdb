"use client";

import { useQuery } from "@tanstack/react-query";
import { useActionState, useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { decideApprovalAction } from "@/lib/features/runs/run-actions";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { apiFetch } from "@/lib/platform/api/api-fetch";
import { summarizeEvent } from "@/lib/features/runs/components/run-format";
import type { ApproverGroups, Role } from "@/db/schema";
import { roleAtLeast } from "@/lib/platform/auth/roles";
import { decisionRefusal, describeApprovers, hasApprovers } from "../approvers";

/** Who is looking at the card: whether they may decide depends on the approval's approvers. */
export interface ApprovalViewer {
  email?: string;
  role: Role;
}

export interface PendingApproval {
  id: string;
  runId: string;
  agentName?: string;
  toolName?: string | null;
  toolInput?: unknown;
  hookKey: string;
  message?: string | null;
  expiresAt?: string | null;
  requestedAt: string;
  approvers?: ApproverGroups | null;
}

/** Re-renders every second, so the time left counts down. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, []);
  return now;
}

function timeLeft(expiresAt: string | null | undefined, now: number): string {
  if (!expiresAt) return "waits until someone decides";
  const ms = new Date(expiresAt).getTime() - now;
  if (ms <= 0) return "timing out now";
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s left` : `${Math.round(s / 60)} min left`;
}

/** The run's last events before the question: what the agent was doing. */
function RecentContext({ runId }: { runId: string }) {
  const tail = useQuery({
    queryKey: ["run-tail", runId],
    queryFn: () => apiFetch<{ items: { seq: number; type: string; data: Record<string, unknown> }[] }>(`/api/v1/runs/${runId}/events?tail=6`),
  });
  if (!tail.data?.items.length) return null;
  return (
    <ol className="mt-2 space-y-0.5 text-xs text-zinc-600 dark:text-zinc-400" aria-label="Recent context" data-testid="approval-context">
      {tail.data.items.map((e) => (
        <li key={e.seq} className="truncate">
          <span className="font-mono">{e.type}</span> {summarizeEvent(e.type, e.data)}
        </li>
      ))}
    </ol>
  );
}

export function ApprovalCard({ approval, viewer, showContext = false }: { approval: PendingApproval; viewer: ApprovalViewer; showContext?: boolean }) {
  const refusal = decisionRefusal(approval.approvers, viewer, "operator");
  const canDecide = refusal === undefined;
  // Writing the allow rule is a hook change: an operator's.
  const canAlwaysAllow = canDecide && roleAtLeast(viewer.role, "operator") && Boolean(approval.toolName);
  const [state, action, pending] = useActionState(decideApprovalAction, {});
  const approveRef = useRef<HTMLButtonElement>(null);
  const now = useNow();
  const denyRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (state.message) (state.ok ? toast.success : toast.error)(state.message);
  }, [state]);
  return (
    <form
      action={action}
      tabIndex={canDecide ? 0 : undefined}
      aria-label={`Approval for ${approval.toolName ?? "an action"}; press A to approve, D to deny`}
      onKeyDown={(e) => {
        // Keyboard decisions on the focused card; typing a reason is left alone.
        if (!canDecide || pending || (e.target as HTMLElement).tagName === "INPUT") return;
        const key = e.key.toLowerCase();
        if (key === "a") e.currentTarget.requestSubmit(approveRef.current);
        if (key === "d") e.currentTarget.requestSubmit(denyRef.current);
      }}
      className="rounded-lg border border-violet-300 bg-violet-50 p-4 text-sm focus:ring-2 focus:ring-violet-500 dark:border-violet-800 dark:bg-violet-950/40"
      data-testid="approval-card"
      id={`approval-${approval.id}`}
    >
      <input type="hidden" name="id" value={approval.id} />
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p>
          <span className="font-medium">{approval.agentName ?? "agent"}</span> wants to call{" "}
          <span className="font-mono">{approval.toolName ?? "a tool"}</span>
          <span className="text-zinc-500"> · asked by hook {approval.hookKey}</span>
        </p>
        <span className="text-xs text-zinc-500" data-testid="approval-time-left">
          {timeLeft(approval.expiresAt, now)}
        </span>
      </div>
      {approval.message && <p className="mt-1">{approval.message}</p>}
      {hasApprovers(approval.approvers) && (
        <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400" data-testid="approval-approvers">
          Only {describeApprovers(approval.approvers)} may decide.
        </p>
      )}
      {showContext && <RecentContext runId={approval.runId} />}
      <pre className="mt-2 max-h-40 overflow-auto rounded bg-white p-2 font-mono text-xs dark:bg-zinc-900">
        {JSON.stringify(approval.toolInput, null, 2)}
      </pre>
      {canDecide ? (
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <input name="reason" placeholder="Reason (optional)" aria-label="Reason" className={`${inputClass} max-w-xs`} />
          <Button ref={approveRef} type="submit" name="decision" value="approve" disabled={pending} data-testid="approve" aria-keyshortcuts="A">
            Approve <kbd className="text-xs opacity-70">A</kbd>
          </Button>
          {canAlwaysAllow && (
            <Button
              type="submit"
              name="decision"
              value="approve_always"
              variant="secondary"
              disabled={pending}
              data-testid="approve-always"
              title="Approves, and writes an allow rule for this exact call in shadow mode: the ledger shows what it would let through until you switch it to enforce"
            >
              Approve and always allow this
            </Button>
          )}
          <Button ref={denyRef} type="submit" name="decision" value="deny" variant="danger" disabled={pending} data-testid="deny" aria-keyshortcuts="D">
            Deny <kbd className="text-xs opacity-70">D</kbd>
          </Button>
        </div>
      ) : (
        <p className="mt-2 text-xs text-zinc-500" data-testid="approval-refusal">
          {refusal}.
        </p>
      )}
    </form>
  );
}
