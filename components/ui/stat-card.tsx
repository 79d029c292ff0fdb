import { clsx } from "clsx";
import Link from "next/link";
import type { ReactNode } from "react";

/** One figure with its label, linking to what it counts when it can. */
export function StatCard({ label, value, href, tone, testId, children }: { label: string; value: ReactNode; href?: string; tone?: "red" | "amber"; testId?: string; children?: ReactNode }) {
  const body = (
    <>
      <span className="block text-xs text-zinc-500 dark:text-zinc-400">{label}</span>
      <span
        className={clsx(
          "mt-1 block text-lg font-semibold tabular-nums",
          tone === "red" && "text-red-700 dark:text-red-300",
          tone === "amber" && "text-amber-700 dark:text-amber-300",
        )}
        data-testid={testId ? `${testId}-value` : undefined}
      >
        {value}
      </span>
      {children && <span className="mt-0.5 block text-xs text-zinc-500 dark:text-zinc-400">{children}</span>}
    </>
  );
  const box = "block rounded-lg border border-zinc-200 bg-white px-3 py-2 dark:border-zinc-800 dark:bg-zinc-900";
  return href ? (
    <Link href={href} className={clsx(box, "hover:border-indigo-300 dark:hover:border-indigo-700")} data-testid={testId}>
      {body}
    </Link>
  ) : (
    <div className={box} data-testid={testId}>
      {body}
    </div>
  );
}
