"use client";

import { ChevronDown, ChevronRight } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { formatTime } from "@/components/ui/format-time";
import { FilterBar } from "./filter-bar";
import { SelectFilter, TextFilter } from "./filter-field";
import { JsonDiff } from "./json-diff";
import { PagedResults, useAuditPages } from "./paged-results";
import { TIME_WINDOWS } from "./time-window";
import { useUrlFilters } from "./use-url-filters";
import type { AuditEntryResponse } from "../schema";

const FILTERS = ["entityType", "action", "actor", "window", "scope"] as const;

/** Instance admins may read the instance's own entries (people, projects, providers, instance settings and hooks). */
const SCOPES = [{ value: "instance", label: "the instance" }];

/** The entity types the services write to the audit log, with the page that shows each. */
const ENTITY_TYPES: { value: string; label: string; href?: (id: string) => string }[] = [
  { value: "agent", label: "Agents", href: (id) => `/agents/${id}` },
  { value: "hook", label: "Hooks", href: (id) => `/hooks/${id}` },
  { value: "hook_scope", label: "Hook order" },
  { value: "schedule", label: "Schedules" },
  { value: "setting", label: "Settings" },
  { value: "model_prices", label: "Prices" },
  { value: "api_token", label: "API tokens" },
  { value: "user", label: "Users" },
  { value: "project", label: "Projects" },
  { value: "run", label: "Runs", href: (id) => `/runs/${id}` },
  { value: "approval", label: "Approvals" },
];


function EntityCell({ row }: { row: AuditEntryResponse }) {
  const href = row.entityId ? ENTITY_TYPES.find((t) => t.value === row.entityType)?.href?.(row.entityId) : undefined;
  // A readable name when the values carry one (agents have a name, hooks a key), else the id.
  const values = (row.after ?? row.before) as { name?: unknown; key?: unknown } | null;
  const label = typeof values?.name === "string" ? values.name : typeof values?.key === "string" ? values.key : row.entityId;
  return (
    <span className="text-xs">
      <span className="text-zinc-500">{row.entityType}</span>{" "}
      {label &&
        (href && row.action !== `${row.entityType}.delete` ? (
          <Link href={href} className="font-mono text-indigo-600 hover:underline dark:text-indigo-400">
            {label}
          </Link>
        ) : (
          <span className="font-mono">{label}</span>
        ))}
    </span>
  );
}

function AuditEntry({ row }: { row: AuditEntryResponse }) {
  const [open, setOpen] = useState(false);
  const Chevron = open ? ChevronDown : ChevronRight;
  return (
    <li className="border-t border-zinc-100 first:border-t-0 dark:border-zinc-800" data-testid="audit-row" data-action={row.action}>
      <button
        type="button"
        onClick={() => setOpen(!open)}
        aria-expanded={open}
        className="grid w-full grid-cols-[1rem_11rem_1fr_1fr_1.5fr] items-center gap-3 px-3 py-2 text-left text-sm hover:bg-zinc-50 dark:hover:bg-zinc-800/50"
        data-testid="audit-expand"
      >
        <Chevron className="h-4 w-4 text-zinc-500" aria-hidden />
        <span className="whitespace-nowrap text-xs text-zinc-500">{formatTime(row.createdAt)}</span>
        <span className="truncate font-mono text-xs" data-testid="audit-action">
          {row.action}
        </span>
        <span className="truncate text-xs" data-testid="audit-actor">
          {row.actor}
        </span>
        <EntityCell row={row} />
      </button>
      {open && (
        <div className="space-y-2 px-3 pb-3 pl-10">
          <div className="flex gap-4 text-xs text-zinc-500">
            <span>
              <span className="font-medium text-red-700 dark:text-red-300">−</span> before
            </span>
            <span>
              <span className="font-medium text-emerald-700 dark:text-emerald-300">+</span> after
            </span>
          </div>
          <JsonDiff before={row.before} after={row.after} />
        </div>
      )}
    </li>
  );
}

/**
 * Every configuration change of the project: who, what, when, and the values before and after.
 * An instance admin may switch to the instance's own changes.
 */
export function ConfigChangeLog({ instanceAdmin = false }: { instanceAdmin?: boolean }) {
  const filters = useUrlFilters(FILTERS);
  const { apiQuery, active } = filters;
  const query = useAuditPages<AuditEntryResponse>("audit-log", "/api/v1/audit", apiQuery);

  return (
    <div className="space-y-4">
      <FilterBar filters={filters} testIdPrefix="audit">
        <SelectFilter filters={filters} name="entityType" label="What changed" any="everything" options={ENTITY_TYPES} testId="audit-entity-type" />
        <TextFilter filters={filters} name="action" label="Action" placeholder="hook or hook.update" width="w-44" testId="audit-action-filter" />
        <TextFilter filters={filters} name="actor" label="Who" placeholder="admin@example.com" width="w-52" testId="audit-actor-filter" />
        <SelectFilter filters={filters} name="window" label="When" options={TIME_WINDOWS} testId="audit-window" />
        {instanceAdmin && <SelectFilter filters={filters} name="scope" label="Of" any="this project" options={SCOPES} testId="audit-scope" />}
      </FilterBar>

      <PagedResults query={query} what="changes" filtered={active} emptyHint="Changes to agents, hooks, schedules and settings are recorded here." testId="audit">
        {(rows) => (
          <div className="overflow-hidden rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
            <div className="grid grid-cols-[1rem_11rem_1fr_1fr_1.5fr] gap-3 bg-zinc-50 px-3 py-2 text-xs font-medium text-zinc-500 dark:bg-zinc-800/50" aria-hidden>
              <span />
              <span>Time</span>
              <span>Action</span>
              <span>Who</span>
              <span>Entity</span>
            </div>
            <ul data-testid="audit-list">
              {rows.map((row) => (
                <AuditEntry key={row.id} row={row} />
              ))}
            </ul>
          </div>
        )}
      </PagedResults>
    </div>
  );
}
