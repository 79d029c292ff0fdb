"use client";

import { ArrowDown, ArrowUp } from "lucide-react";
import { useTransition } from "react";
import { toast } from "sonner";
import { moveHookAction, setHookEnabledAction } from "@/lib/features/hooks/hook-actions";
import type { ActionState } from "@/lib/platform/api/action-state";

function report(result: ActionState) {
  if (result.ok) toast.success(result.message);
  else toast.error(result.message ?? "That did not work");
}

const iconButton =
  "rounded-md p-1.5 text-zinc-600 hover:bg-zinc-100 disabled:cursor-not-allowed disabled:opacity-30 dark:text-zinc-300 dark:hover:bg-zinc-800";

/**
 * Reorder and enable controls of one hook. `visibleIds` are the hooks shown in its scope, so a
 * move steps past the neighbour the person sees even when a filter hides others.
 */
export function HookRowControls({
  id,
  label,
  enabled,
  first,
  last,
  visibleIds,
  disabledReason,
}: {
  id: string;
  label: string;
  enabled: boolean;
  first: boolean;
  last: boolean;
  visibleIds: string[];
  disabledReason?: string;
}) {
  const [pending, startTransition] = useTransition();
  const locked = pending || Boolean(disabledReason);
  const move = (direction: "up" | "down") => startTransition(async () => report(await moveHookAction({ id, direction, visibleIds })));
  const toggle = () => startTransition(async () => report(await setHookEnabledAction({ id, enabled: !enabled })));
  return (
    <div className="flex items-center gap-1" title={disabledReason}>
      <button type="button" className={iconButton} disabled={pending || first} onClick={() => move("up")} aria-label={`Move ${label} up`} data-testid="move-up">
        <ArrowUp className="h-4 w-4" aria-hidden />
      </button>
      <button type="button" className={iconButton} disabled={pending || last} onClick={() => move("down")} aria-label={`Move ${label} down`} data-testid="move-down">
        <ArrowDown className="h-4 w-4" aria-hidden />
      </button>
      <button
        type="button"
        role="switch"
        aria-checked={enabled}
        aria-label={`${label} enabled`}
        disabled={locked}
        onClick={toggle}
        data-testid="toggle-enabled"
        className={`relative ml-1 inline-flex h-5 w-9 shrink-0 items-center rounded-full transition-colors disabled:cursor-not-allowed disabled:opacity-50 ${
          enabled ? "bg-indigo-600" : "bg-zinc-300 dark:bg-zinc-700"
        }`}
      >
        <span className={`inline-block h-4 w-4 rounded-full bg-white shadow transition-transform ${enabled ? "translate-x-4" : "translate-x-0.5"}`} />
      </button>
    </div>
  );
}
