import { DiffLines, type ShownLine } from "@/components/ui/diff-lines";
import { diffLines, type DiffLine } from "@/components/ui/line-diff";

/** Unchanged lines kept around each change; longer unchanged stretches fold into one line. */
const CONTEXT_LINES = 3;


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
    <DiffLines lines={lines} testId="audit-diff" />
  );
}
