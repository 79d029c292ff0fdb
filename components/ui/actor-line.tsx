import type { ReactNode } from "react";

/** The head of a person's entry in a list of their sessions or machines: who, then which one. */
export function ActorLine({ label, detail, detailTitle }: { label: string; detail: ReactNode; detailTitle?: string }) {
  return (
    <div className="flex flex-wrap items-baseline gap-x-2">
      <span className="font-medium">{label}</span>
      <span className="font-mono text-xs text-zinc-500" title={detailTitle}>
        {detail}
      </span>
    </div>
  );
}
