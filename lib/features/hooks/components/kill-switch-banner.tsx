"use client";

import { OctagonX } from "lucide-react";
import { useTransition } from "react";
import { toast } from "sonner";
import { setKillSwitchAction } from "@/lib/features/hooks/hook-actions";
import { Button } from "@/components/ui/button";

/** Loud when every hook is off; for admins, the switch itself. */
export function KillSwitchBanner({ enabled, canToggle }: { enabled: boolean; canToggle: boolean }) {
  const [pending, startTransition] = useTransition();
  const flip = (next: boolean) => {
    if (next && !confirm("Disable every hook at once? Guards and approvals stop applying until you turn hooks back on.")) return;
    startTransition(async () => {
      const result = await setKillSwitchAction({ enabled: next });
      if (result.ok) toast.success(result.message);
      else toast.error(result.message ?? "Could not change the kill switch");
    });
  };

  if (enabled) {
    return (
      <div
        role="alert"
        data-testid="kill-switch-banner"
        className="mb-5 flex items-center justify-between gap-4 rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100"
      >
        <span className="flex items-center gap-2">
          <OctagonX className="h-5 w-5 shrink-0" aria-hidden />
          <span>
            <strong>Kill switch is on:</strong> no hook runs. Guards do not block and approvals are not asked for until it is turned off.
          </span>
        </span>
        {canToggle && (
          <Button variant="secondary" disabled={pending} onClick={() => flip(false)} data-testid="kill-switch-off">
            {pending ? "Turning on…" : "Turn hooks back on"}
          </Button>
        )}
      </div>
    );
  }
  if (!canToggle) return null;
  return (
    <div className="mb-5 flex items-center justify-between gap-4 rounded-lg border border-zinc-200 bg-white px-4 py-2 text-sm text-zinc-600 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-400">
      <span>Kill switch is off: hooks run as configured.</span>
      <Button variant="ghost" disabled={pending} onClick={() => flip(true)} data-testid="kill-switch-on" className="text-red-700 dark:text-red-400">
        {pending ? "Disabling…" : "Disable every hook"}
      </Button>
    </div>
  );
}
