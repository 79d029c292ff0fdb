"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useTransition } from "react";
import { inputClass, Options } from "@/components/ui/field";
import type { ScopeOption } from "@/lib/features/hooks/hook-scopes";
import { EVENT_NAMES } from "@/lib/core/hooks/events";

/** Event and scope filters kept in the URL, so a filtered view is a link someone can share. */
/** `scope` is the resolved filter (a link may name the agent; the select shows its option). */
export function HookFilters({ scopes, scope, event }: { scopes: ScopeOption[]; scope?: string; event?: string }) {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const [pending, startTransition] = useTransition();

  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    startTransition(() => router.replace(next.size ? `${pathname}?${next}` : pathname, { scroll: false }));
  };

  return (
    <div className="mb-5 flex flex-wrap items-end gap-3" role="search" aria-label="Filter hooks" aria-busy={pending}>
      <div className="space-y-1">
        <label htmlFor="filter-event" className="block text-xs font-medium text-zinc-600 dark:text-zinc-400">
          Event
        </label>
        <select id="filter-event" className={inputClass} value={event ?? ""} onChange={(e) => set("event", e.target.value)} data-testid="filter-event">
          <option value="">All events</option>
          <Options choices={EVENT_NAMES} />
        </select>
      </div>
      <div className="space-y-1">
        <label htmlFor="filter-scope" className="block text-xs font-medium text-zinc-600 dark:text-zinc-400">
          Scope
        </label>
        <select id="filter-scope" className={inputClass} value={scope ?? ""} onChange={(e) => set("scope", e.target.value)} data-testid="filter-scope">
          <option value="">All scopes</option>
          <Options choices={scopes} />
        </select>
      </div>
      {(params.has("event") || params.has("scope")) && (
        <button type="button" className="pb-2 text-sm text-indigo-600 hover:underline dark:text-indigo-400" onClick={() => startTransition(() => router.replace(pathname))}>
          Clear filters
        </button>
      )}
    </div>
  );
}
