"use client";

import { useActionState, useEffect } from "react";
import { toast } from "sonner";
import { decideApprovalAction } from "@/app/actions/runs";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";

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
}

function timeLeft(expiresAt?: string | null): string {
  if (!expiresAt) return "waits until someone decides";
  const ms = new Date(expiresAt).getTime() - Date.now();
  if (ms <= 0) return "timing out now";
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s left` : `${Math.round(s / 60)} min left`;
}

export function ApprovalCard({ approval, canDecide }: { approval: PendingApproval; canDecide: boolean }) {
  const [state, action, pending] = useActionState(decideApprovalAction, {});
  useEffect(() => {
    if (state.message) (state.ok ? toast.success : toast.error)(state.message);
  }, [state]);
  return (
    <form
      action={action}
      className="rounded-lg border border-violet-300 bg-violet-50 p-4 text-sm dark:border-violet-800 dark:bg-violet-950/40"
      data-testid="approval-card"
    >
      <input type="hidden" name="id" value={approval.id} />
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p>
          <span className="font-medium">{approval.agentName ?? "agent"}</span> wants to call{" "}
          <span className="font-mono">{approval.toolName ?? "a tool"}</span>
          <span className="text-zinc-500"> · asked by hook {approval.hookKey}</span>
        </p>
        <span className="text-xs text-zinc-500" data-testid="approval-time-left">
          {timeLeft(approval.expiresAt)}
        </span>
      </div>
      {approval.message && <p className="mt-1">{approval.message}</p>}
      <pre className="mt-2 max-h-40 overflow-auto rounded bg-white p-2 font-mono text-xs dark:bg-zinc-900">
        {JSON.stringify(approval.toolInput, null, 2)}
      </pre>
      {canDecide ? (
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <input name="reason" placeholder="Reason (optional)" aria-label="Reason" className={`${inputClass} max-w-xs`} />
          <Button type="submit" name="decision" value="approve" disabled={pending} data-testid="approve">
            Approve
          </Button>
          <Button type="submit" name="decision" value="deny" variant="danger" disabled={pending} data-testid="deny">
            Deny
          </Button>
        </div>
      ) : (
        <p className="mt-2 text-xs text-zinc-500">Operators and admins decide approvals.</p>
      )}
    </form>
  );
}
