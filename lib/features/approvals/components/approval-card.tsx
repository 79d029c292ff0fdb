"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { decideApprovalAction } from "@/lib/features/approvals/approval-actions";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { useActionForm } from "@/components/ui/use-action-form";
import { apiFetch } from "@/lib/platform/api/api-fetch";
import { summarizeEvent } from "@/lib/core/hooks/event-summary";
import type { ApproverGroups, Role } from "@/db/schema";
import { roleAtLeast } from "@/lib/platform/auth/roles";
import { decisionRefusal, describeApprovers, hasApprovers } from "../approvers";
import type { ApprovalContextEvent, ApprovalResponse } from "../schema";

/** Who is looking at the card: whether they may decide depends on the approval's approvers. */
export interface ApprovalViewer {
  email?: string;
  role: Role;
}


const DECIDABLE_CARD = '[data-testid="approval-card"][data-decidable="true"]';

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/**
 * A and D decide the focused card, or when no card has focus the first waiting one on the page
 * (a person arriving from a notice should not have to find and focus it first). That card is
 * focused before it is decided, so the ring shows which one the key went to. Typing in a field,
 * or a key with a modifier, is left alone.
 */
function useDecisionKeys(form: React.RefObject<HTMLFormElement | null>, buttons: { approve: React.RefObject<HTMLButtonElement | null>; deny: React.RefObject<HTMLButtonElement | null> }, enabled: boolean) {
  useEffect(() => {
    if (!enabled) return;
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
      const key = e.key.toLowerCase();
      if (key !== "a" && key !== "d") return;
      const focused = document.activeElement instanceof HTMLElement ? document.activeElement.closest(DECIDABLE_CARD) : null;
      const target = focused ?? document.querySelector(DECIDABLE_CARD);
      if (!form.current || target !== form.current) return;
      e.preventDefault();
      const button = key === "a" ? buttons.approve.current : buttons.deny.current;
      if (!button || button.disabled) return;
      if (!focused) form.current.focus();
      form.current.requestSubmit(button);
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [form, buttons.approve, buttons.deny, enabled]);
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
    queryFn: () => apiFetch<{ items: ApprovalContextEvent[] }>(`/api/v1/runs/${runId}/events?tail=6`),
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

export function ApprovalCard({ approval, viewer, showContext = false }: { approval: ApprovalResponse; viewer: ApprovalViewer; showContext?: boolean }) {
  const refusal = decisionRefusal(approval.approvers, viewer, "operator");
  const canDecide = refusal === undefined;
  // Writing the allow rule is a hook change: an operator's.
  const canAlwaysAllow = canDecide && roleAtLeast(viewer.role, "operator") && Boolean(approval.toolName);
  // Rewriting the call before approving it is an operator's too (the API refuses anyone else).
  const canEdit = canAlwaysAllow;
  const [editing, setEditing] = useState(false);
  const { state, pending, formProps } = useActionForm(decideApprovalAction);
  const approveRef = useRef<HTMLButtonElement>(null);
  const now = useNow();
  const denyRef = useRef<HTMLButtonElement>(null);
  useDecisionKeys(formProps.ref, { approve: approveRef, deny: denyRef }, canDecide && !pending);
  useEffect(() => {
    if (state.message) (state.ok ? toast.success : toast.error)(state.message);
  }, [state]);
  return (
    <form
      {...formProps}
      tabIndex={canDecide ? 0 : undefined}
      aria-label={`Approval for ${approval.toolName ?? "an action"}; press A to approve, D to deny`}
      className="min-w-0 rounded-lg border border-violet-300 bg-violet-50 p-3 text-sm outline-none focus:ring-2 focus:ring-violet-600 focus:ring-offset-2 dark:border-violet-800 dark:bg-violet-950/40 dark:focus:ring-violet-400 dark:focus:ring-offset-zinc-950 sm:p-4"
      data-testid="approval-card"
      data-decidable={canDecide ? "true" : undefined}
      id={`approval-${approval.id}`}
    >
      <input type="hidden" name="id" value={approval.id} />
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="min-w-0 break-words">
          <span className="font-medium">{approval.agentName ?? "agent"}</span>
          {approval.actor && (
            <span data-testid="approval-actor">
              {" "}
              of <span className="font-medium">{approval.actor.label}</span>
            </span>
          )}{" "}
          wants to call{" "}
          <span className="font-mono">{approval.toolName ?? "a tool"}</span>
          <span className="text-zinc-600 dark:text-zinc-400"> · asked by hook {approval.hookKey}</span>
        </p>
        <span className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="approval-time-left">
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
      {editing ? (
        <label className="mt-2 block text-xs">
          <span className="text-zinc-600 dark:text-zinc-400">Input to approve (JSON object): the call runs with this instead of what was asked</span>
          <textarea
            name="input"
            aria-label="Edited input"
            data-testid="approval-input-editor"
            defaultValue={JSON.stringify(approval.toolInput, null, 2)}
            rows={8}
            className={`${inputClass} mt-1 font-mono text-xs`}
          />
        </label>
      ) : (
        // Wrapped, never cut: the person decides on what the tool would get, on a phone too.
        <pre className="mt-2 max-h-96 overflow-y-auto whitespace-pre-wrap break-all rounded bg-white p-2 font-mono text-xs dark:bg-zinc-900" data-testid="approval-input">
          {JSON.stringify(approval.toolInput, null, 2)}
        </pre>
      )}
      {state.fieldErrors?.input && (
        <p className="mt-1 text-xs text-red-600" role="alert" data-testid="approval-input-issue">
          {state.fieldErrors.input}
        </p>
      )}
      {canDecide ? (
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <input name="reason" placeholder="Reason (optional)" aria-label="Reason" className={`${inputClass} w-full sm:max-w-xs`} />
          <Button ref={approveRef} type="submit" name="decision" value="approve" disabled={pending} data-testid="approve" aria-keyshortcuts="A">
            Approve <kbd className="text-xs opacity-70">A</kbd>
          </Button>
          {canEdit && !editing && (
            <Button type="button" variant="secondary" disabled={pending} onClick={() => setEditing(true)} data-testid="approval-edit" title="Change the call's input before approving it; the ledger keeps what was asked and what you approved">
              Edit input
            </Button>
          )}
          {canAlwaysAllow && !editing && (
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
