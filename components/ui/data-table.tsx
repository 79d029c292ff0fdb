import { clsx } from "clsx";
import type { ReactNode } from "react";

export interface Column {
  label: string;
  align?: "right";
  /** A column without a visible heading (row actions). */
  hidden?: boolean;
}

/**
 * The table shell every list shares: a boxed table for a page's main list, a plain one inside a
 * section. Rows stay the caller's, so each list keeps its own cells.
 */
export function DataTable({
  columns,
  variant = "boxed",
  testId,
  className,
  children,
}: {
  columns: Column[];
  variant?: "boxed" | "plain";
  testId?: string;
  className?: string;
  children: ReactNode;
}) {
  const boxed = variant === "boxed";
  return (
    // Focusable: on a narrow screen the table scrolls sideways inside this box, and a keyboard must
    // reach that too. Relative: a hidden heading (sr-only, absolutely placed) stays inside the box
    // instead of widening the whole page.
    <div tabIndex={0} className={clsx("relative overflow-x-auto", boxed && "rounded-lg border border-zinc-200 dark:border-zinc-800", className)}>
      <table className={clsx("w-full text-left text-sm", boxed && "bg-white dark:bg-zinc-900")} data-testid={testId}>
        <thead className={clsx("text-xs text-zinc-500", boxed && "bg-zinc-50 dark:bg-zinc-800/50")}>
          <tr>
            {columns.map((column, i) => (
              <th
                key={`${column.label}-${i}`}
                className={clsx("font-medium", boxed ? "px-3 py-2" : "py-1 pr-3", column.align === "right" && "text-right")}
              >
                {column.hidden ? <span className="sr-only">{column.label}</span> : column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
