import { clsx } from "clsx";
import { diffLines, type DiffLine } from "@/lib/hooks-config/line-diff";

/** Unchanged lines kept around each change; longer unchanged stretches fold into one line. */
const CONTEXT_LINES = 3;

type ShownLine = DiffLine | { kind: "folded"; count: number };

function foldUnchanged(lines: DiffLine[]): ShownLine[] {
  const near = lines.map((_, i) => lines.slice(Math.max(0, i - CONTEXT_LINES), i + CONTEXT_LINES + 1).some((l) => l.kind !== "same"));
  const shown: ShownLine[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (near[i]) {
      shown.push(lines[i]);
      continue;
    }
    const last = shown[shown.length - 1];
    if (last?.kind === "folded") last.count++;
    else shown.push({ kind: "folded", count: 1 });
  }
  return shown;
}

function asText(value: unknown): string {
  return value === null || value === undefined ? "" : JSON.stringify(value, null, 2);
}

/** Before and after of an audited change as a line diff of their JSON. */
export function JsonDiff({ before, after }: { before: unknown; after: unknown }) {
  const beforeText = asText(before);
  const afterText = asText(after);
  if (!beforeText && !afterText) return <p className="text-xs text-zinc-500">No values were recorded for this change.</p>;
  const lines = foldUnchanged(
    diffLines(beforeText, afterText).filter((l) => !(l.text === "" && ((l.kind === "removed" && !beforeText) || (l.kind === "added" && !afterText)))),
  );
  return (
    <pre className="overflow-x-auto rounded-lg border border-zinc-200 bg-zinc-50 py-2 font-mono text-xs dark:border-zinc-800 dark:bg-zinc-950" data-testid="audit-diff">
      {lines.map((line, i) =>
        line.kind === "folded" ? (
          <div key={i} className="px-3 text-zinc-400">
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
            <span aria-hidden className="mr-2 select-none text-zinc-400">
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
