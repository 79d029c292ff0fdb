"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef } from "react";
import { timeWindowStart } from "./time-window";

/**
 * The filters of one audit tab, kept in the URL so a search can be shared. `apiQuery` is what the
 * API gets: the time window preset becomes a `from` date, fixed when the filters last changed so
 * that "Load more" keeps paging the same result.
 */
export function useUrlFilters<K extends string>(keys: readonly K[]) {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const current = params.toString();
  // The URL we last navigated to: several quick changes (pick a verdict, then a window, then
  // search) must build on each other, not on search params the router has not updated yet.
  const pending = useRef<string | null>(null);
  useEffect(() => {
    if (pending.current === current) pending.current = null;
  }, [current]);

  const values = Object.fromEntries(keys.map((k) => [k, params.get(k) ?? ""])) as Record<K, string>;
  const filterKey = new URLSearchParams(keys.map((k) => [k, values[k]])).toString();

  const apiQuery = useMemo(() => {
    const query = new URLSearchParams();
    for (const [key, value] of new URLSearchParams(filterKey)) {
      if (!value || key === "window") continue;
      query.set(key, value);
    }
    const from = timeWindowStart(new URLSearchParams(filterKey).get("window") ?? "", new Date());
    if (from && !query.has("from")) query.set("from", from.toISOString());
    return query.toString();
  }, [filterKey]);

  const setFilters = (changes: Partial<Record<K, string>>) => {
    const next = new URLSearchParams(pending.current ?? current);
    for (const [key, value] of Object.entries(changes) as [string, string | undefined][]) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    pending.current = next.toString();
    router.replace(`${pathname}?${pending.current}`, { scroll: false });
  };

  const active = keys.some((k) => values[k] !== "");
  return { values, apiQuery, active, setFilter: (key: K, value: string) => setFilters({ [key]: value } as Partial<Record<K, string>>), setFilters };
}

export type UrlFilters<K extends string> = ReturnType<typeof useUrlFilters<K>>;
