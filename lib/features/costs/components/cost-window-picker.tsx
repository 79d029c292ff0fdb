"use client";

import { clsx } from "clsx";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { COST_WINDOWS, type CostWindowDays } from "./cost-report";

/** The window lives in the URL (`?days=7`), so a cost view can be shared. */
export function CostWindowPicker({ days }: { days: CostWindowDays }) {
  const params = useSearchParams();
  const pathname = usePathname();
  return (
    <div role="group" aria-label="Time window" className="inline-flex rounded-md border border-zinc-300 p-0.5 dark:border-zinc-700" data-testid="cost-window">
      {COST_WINDOWS.map((d) => {
        const next = new URLSearchParams(params.toString());
        next.set("days", String(d));
        return (
          <Link
            key={d}
            href={`${pathname}?${next}`}
            replace
            scroll={false}
            aria-current={d === days ? "true" : undefined}
            data-testid={`cost-window-${d}`}
            className={clsx(
              "rounded px-3 py-1 text-sm",
              d === days ? "bg-indigo-600 text-white" : "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800",
            )}
          >
            {d} days
          </Link>
        );
      })}
    </div>
  );
}
