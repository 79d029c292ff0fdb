/**
 * In-process wake-ups for approval decisions: every worker process LISTENs on the approvals
 * channel and resolves the local waiters of the approval that changed, so a decision resumes a
 * held run at once instead of on the next poll.
 */
import type { DbHandle } from "@/db/client";
import { CHANNELS, type ApprovalNotice } from "@/db/notify-channels";

export interface ApprovalWaiter {
  /** Resolves true when the approval changes, false when `ms` pass or the signal aborts first. */
  wait(approvalId: string, ms: number, signal?: AbortSignal): Promise<boolean>;
  stop(): Promise<void>;
}

/** Calls `onChange` with the id of every approval created or settled (the approvals channel). */
export function listenForApprovalChanges(handle: DbHandle, onChange: (approvalId: string) => void): Promise<() => Promise<void>> {
  return handle.listen(CHANNELS.approvals, (payload) => {
    let notice: ApprovalNotice | undefined;
    try {
      notice = JSON.parse(payload) as ApprovalNotice;
    } catch {
      return;
    }
    if (typeof notice?.approvalId === "string") onChange(notice.approvalId);
  });
}

export async function startApprovalWaiter(handle: DbHandle): Promise<ApprovalWaiter> {
  const waiting = new Map<string, Set<() => void>>();
  const unlisten = await listenForApprovalChanges(handle, (approvalId) => {
    for (const wake of waiting.get(approvalId) ?? []) wake();
  });
  return {
    wait(approvalId, ms, signal) {
      return new Promise<boolean>((resolve) => {
        const set = waiting.get(approvalId) ?? new Set();
        waiting.set(approvalId, set);
        const finish = (changed: boolean) => {
          clearTimeout(timer);
          set.delete(wake);
          if (set.size === 0) waiting.delete(approvalId);
          signal?.removeEventListener("abort", onAbort);
          resolve(changed);
        };
        const wake = () => finish(true);
        const onAbort = () => finish(false);
        const timer = setTimeout(() => finish(false), Math.max(0, Math.min(ms, 2_147_483_000)));
        set.add(wake);
        if (signal?.aborted) onAbort();
        else signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
    async stop() {
      await unlisten();
    },
  };
}
