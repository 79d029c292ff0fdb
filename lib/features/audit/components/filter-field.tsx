"use client";

import { useId, type ReactNode } from "react";
import { inputClass } from "@/components/ui/field";
import type { UrlFilters } from "./use-url-filters";

/** A small labelled control of an audit filter bar. */
export function FilterField({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label className="text-xs">
      <span className="mb-1 block text-zinc-500">{label}</span>
      {children}
    </label>
  );
}

type SelectOption = string | { readonly value: string; readonly label: string };

/** A filter picked from a list; it applies as soon as it changes. `any` labels the "no filter" choice. */
export function SelectFilter<K extends string>({
  filters,
  name,
  label,
  any,
  options,
  testId,
}: {
  filters: UrlFilters<K>;
  name: K;
  label: string;
  any?: string;
  options: readonly SelectOption[];
  testId?: string;
}) {
  return (
    <FilterField label={label}>
      <select value={filters.values[name]} onChange={(e) => filters.setFilter(name, e.target.value)} className={inputClass} data-testid={testId}>
        {any !== undefined && <option value="">{any}</option>}
        {options.map((option) =>
          typeof option === "string" ? (
            <option key={option}>{option}</option>
          ) : (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ),
        )}
      </select>
    </FilterField>
  );
}

/**
 * A free-text filter. Uncontrolled, so typing does not refetch: the filter bar applies it on
 * Search, reading it from the form by its name. Keyed on the URL value so that it shows a value
 * the URL changed (back button, a shared link).
 */
export function TextFilter<K extends string>({
  filters,
  name,
  label,
  placeholder,
  width,
  suggestions,
  testId,
}: {
  filters: UrlFilters<K>;
  name: K;
  label: string;
  placeholder: string;
  /** Tailwind width class of the input. */
  width: string;
  suggestions?: readonly string[];
  testId: string;
}) {
  const listId = useId();
  return (
    <FilterField label={label}>
      <input
        name={name}
        key={`${name}-${filters.values[name]}`}
        defaultValue={filters.values[name]}
        list={suggestions && listId}
        placeholder={placeholder}
        className={`${inputClass} ${width}`}
        data-testid={testId}
      />
      {suggestions && (
        <datalist id={listId}>
          {suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      )}
    </FilterField>
  );
}
