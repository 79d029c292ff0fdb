import type { ReactNode } from "react";

/** A small labelled control of an audit filter bar. */
export function FilterField({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label className="text-xs">
      <span className="mb-1 block text-zinc-500">{label}</span>
      {children}
    </label>
  );
}
