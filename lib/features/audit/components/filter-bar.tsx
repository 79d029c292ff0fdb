"use client";

import type { ReactNode } from "react";
import { buttonClass } from "@/components/ui/button";
import type { UrlFilters } from "./use-url-filters";

/**
 * The filter form of an audit tab, with its Search button and, beside it, the tab's actions
 * (exports, links). Lists apply as they change; Search applies the text filters together.
 */
export function FilterBar<K extends string>({
  filters,
  testIdPrefix,
  actions,
  children,
}: {
  filters: UrlFilters<K>;
  /** Names the form `<prefix>-filters` and its button `<prefix>-search`. */
  testIdPrefix: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  const form = (
    <form
      className="flex flex-wrap items-end gap-3"
      onSubmit={(e) => {
        e.preventDefault();
        // The text filters are the form's only named controls (selects apply on change).
        const text = [...new FormData(e.currentTarget)].map(([key, value]) => [key, String(value).trim()]);
        filters.setFilters(Object.fromEntries(text) as Partial<Record<K, string>>);
      }}
      data-testid={`${testIdPrefix}-filters`}
    >
      {children}
      <button type="submit" className={buttonClass("secondary")} data-testid={`${testIdPrefix}-search`}>
        Search
      </button>
    </form>
  );
  if (!actions) return form;
  return (
    <div className="flex flex-wrap items-end justify-between gap-3">
      {form}
      {actions}
    </div>
  );
}
