import { clsx } from "clsx";
import type { DiffLine } from "@/components/ui/line-diff";

export type ShownLine = DiffLine | { kind: "folded"; count: number };

/** A line diff as people read one: green additions, red removals, folded unchanged stretches. */
export function DiffLines({ lines, className, testId }: { lines: ShownLine[]; className?: string; testId?: string }) {
  return (
    <pre
      className={clsx("overflow-x-auto rounded-lg border border-zinc-200 bg-zinc-50 py-2 font-mono text-xs dark:border-zinc-800 dark:bg-zinc-950", className)}
      data-testid={testId}
    >
      {lines.map((line, i) =>
        line.kind === "folded" ? (
          <div key={i} className="px-3 text-zinc-500">
            ⋯ {line.count} unchanged line{line.count === 1 ? "" : "s"}
          </div>
        ) : (
          <div
            key={i}
            className={clsx(
              "px-3",
              line.kind === "added" && "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200",
              line.kind === "removed" && "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
            )}
            data-diff={line.kind}
          >
            <span aria-hidden className="mr-2 select-none text-zinc-500">
              {line.kind === "added" ? "+" : line.kind === "removed" ? "-" : " "}
            </span>
            <span className="sr-only">{line.kind === "same" ? "" : `${line.kind}: `}</span>
            {line.text}
          </div>
        ),
      )}
    </pre>
  );
}
