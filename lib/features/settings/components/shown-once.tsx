import type { ReactNode } from "react";
import { CopyableText } from "@/components/ui/copyable-text";

/** A new token's or credential's secret: stored hashed, so shown this once. `children`: how to use it. */
export function ShownOnce({ secret, label, testId, children }: { secret: string; label: string; testId: string; children?: ReactNode }) {
  return (
    <div className="space-y-2">
      <p className="text-xs text-zinc-500">Shown once: copy it now.</p>
      <CopyableText text={secret} label={label} testId={testId} />
      {children}
    </div>
  );
}
