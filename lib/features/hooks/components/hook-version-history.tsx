"use client";

import { useState, useTransition } from "react";
import { toast } from "sonner";
import { DiffLines } from "@/components/ui/diff-lines";
import { restoreHookVersionAction } from "@/lib/features/hooks/hook-actions";
import { diffLines } from "@/components/ui/line-diff";
import { specToText } from "@/lib/features/hooks/spec-text";
import type { HookVersionResponse } from "@/lib/features/hooks/schema";

/** Every version of a hook, newest first, each comparable with the current one and restorable. */
export function HookVersionHistory({
  hookId,
  currentVersion,
  versions,
  canRestore,
}: {
  hookId: string;
  currentVersion: number;
  versions: HookVersionResponse[];
  canRestore: boolean;
}) {
  const [selected, setSelected] = useState<number | undefined>(() => versions.find((v) => v.version !== currentVersion)?.version);
  const [pending, startTransition] = useTransition();
  const current = versions.find((v) => v.version === currentVersion);
  const compared = versions.find((v) => v.version === selected);
  const diff = current && compared ? diffLines(specToText(compared.spec), specToText(current.spec)) : [];

  const restore = (version: number) => {
    if (!confirm(`Make version ${version} current again? It is saved as a new version; nothing is lost.`)) return;
    startTransition(async () => {
      const result = await restoreHookVersionAction({ id: hookId, version });
      if (result.ok) {
        toast.success(result.message);
        setSelected(undefined);
      } else toast.error(result.message ?? "Could not restore");
    });
  };

  return (
    <section aria-labelledby="history-title" className="space-y-3" data-testid="version-history">
      <h2 id="history-title" className="text-sm font-semibold">
        Version history
      </h2>
      <ol className="divide-y divide-zinc-200 overflow-hidden rounded-lg border border-zinc-200 bg-white text-sm dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900">
        {versions.map((v) => (
          <li key={v.version} className="flex items-center justify-between gap-2 px-3 py-2" data-testid="version-item">
            <div className="min-w-0">
              <span className="font-medium">v{v.version}</span>
              {v.version === currentVersion && <span className="ml-2 rounded bg-emerald-50 px-1.5 py-0.5 text-xs text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300">current</span>}
              <p className="truncate text-xs text-zinc-500">
                {v.createdBy ?? "unknown"} · {new Date(v.createdAt).toLocaleString()}
              </p>
            </div>
            {v.version !== currentVersion && (
              <div className="flex shrink-0 gap-2 text-xs">
                <button
                  type="button"
                  aria-pressed={selected === v.version}
                  onClick={() => setSelected(selected === v.version ? undefined : v.version)}
                  className="text-indigo-600 hover:underline dark:text-indigo-400"
                  data-testid="compare-version"
                >
                  {selected === v.version ? "Hide diff" : "Compare"}
                </button>
                {canRestore && (
                  <button type="button" disabled={pending} onClick={() => restore(v.version)} className="text-zinc-700 hover:underline disabled:opacity-50 dark:text-zinc-300" data-testid="restore-version">
                    Restore
                  </button>
                )}
              </div>
            )}
          </li>
        ))}
      </ol>
      {compared && (
        <div data-testid="version-diff">
          <p className="mb-1 text-xs text-zinc-500">
            Changes from v{compared.version} to the current v{currentVersion}:
          </p>
          <DiffLines lines={diff} />
        </div>
      )}
    </section>
  );
}
