"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { clsx } from "clsx";
import { Plus, Trash2 } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { ApiClientError, apiFetch } from "@/lib/platform/api/api-fetch";
import { regexError } from "@/lib/core/hooks/linear-regex";
import type { PriceResponse } from "../schema";
import { draftFromRow, draftToRequest, emptyDraft, matchDraft, type PriceDraft } from "./price-draft";
import { PriceMatchTester } from "./price-match-tester";

type Field = Exclude<keyof PriceDraft, "key">;
const NUMBER_FIELDS = [
  ["inputUsdPerM", "Input"],
  ["outputUsdPerM", "Output"],
  ["cachedUsdPerM", "Cached"],
] as const;

/** `items[3].modelPattern` → row 3, field modelPattern (the API's zod issue paths). */
function issuesByRow(issues: { path: string; message: string }[] | undefined) {
  const byRow: Record<string, string> = {};
  for (const issue of issues ?? []) {
    const m = /^items\[(\d+)\]\.(\w+)/.exec(issue.path);
    if (m) byRow[`${m[1]}.${m[2]}`] ??= issue.message;
  }
  return byRow;
}

const cellInput = `${inputClass} px-2 py-1`;

/**
 * The whole price table in one form: PUT replaces it atomically, so edits, additions and deletions
 * are saved together. Admins edit; everyone else reads the same table.
 */
export function PriceTableEditor({ canEdit }: { canEdit: boolean }) {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: ["prices"], queryFn: () => apiFetch<{ items: PriceResponse[] }>("/api/v1/prices") });
  const [drafts, setDrafts] = useState<PriceDraft[] | undefined>(undefined);
  const [issues, setIssues] = useState<Record<string, string>>({});
  const [testModel, setTestModel] = useState("openai:gpt-4.1-mini");

  const saved = query.data?.items.map(draftFromRow);
  const rows = drafts ?? saved ?? [];
  const dirty = drafts !== undefined;
  const matchedKey = matchDraft(rows, testModel)?.key;

  const save = useMutation({
    mutationFn: () => apiFetch<{ items: PriceResponse[] }>("/api/v1/prices", { method: "PUT", body: JSON.stringify({ items: rows.map(draftToRequest) }) }),
    onSuccess: (result) => {
      queryClient.setQueryData(["prices"], result);
      setDrafts(undefined);
      setIssues({});
      toast.success(`Price table saved (${result.items.length} rows). New model calls are priced with it.`);
    },
    onError: (error) => {
      setIssues(issuesByRow(error instanceof ApiClientError ? error.issues : undefined));
      toast.error(error.message);
    },
  });

  const edit = (index: number, field: Field, value: string) => {
    setDrafts(rows.map((r, i) => (i === index ? { ...r, [field]: value } : r)));
    if (issues[`${index}.${field}`]) setIssues(({ [`${index}.${field}`]: _, ...rest }) => rest);
  };
  // Row indices shift: issues from the last save no longer point at the right rows.
  const addRow = () => {
    setDrafts([...rows, emptyDraft()]);
    setIssues({});
  };
  const removeRow = (index: number) => {
    setDrafts(rows.filter((_, i) => i !== index));
    setIssues({});
  };

  if (query.isPending) return <div role="status" className="h-40 animate-pulse rounded-lg bg-zinc-200 dark:bg-zinc-800" aria-busy="true" aria-label="Loading prices" />;
  if (query.isError) {
    return (
      <p role="alert" className="text-sm text-red-600">
        Could not load the price table: {query.error.message}
      </p>
    );
  }

  const errorOf = (index: number, field: Field) =>
    issues[`${index}.${field}`] ?? (field === "modelPattern" && rows[index].modelPattern ? regexError(rows[index].modelPattern) : undefined);

  return (
    <div className="space-y-4" data-testid="price-table-editor">
      <PriceMatchTester drafts={rows} model={testModel} onModelChange={setTestModel} />
      {rows.length === 0 ? (
        <p className="text-sm text-zinc-500" data-testid="prices-empty">
          The price table is empty: every run costs $0.{canEdit && " Add a row for each model you use."}
        </p>
      ) : (
        <div tabIndex={0} className="relative overflow-x-auto">
          {/* A minimum width: on a phone the table scrolls in its box rather than squeezing its fields to one character. */}
          <table className="w-full min-w-[48rem] text-left text-sm" data-testid="price-table">
            <thead className="text-xs text-zinc-500">
              <tr>
                <th className="py-1 pr-2 font-medium">Model pattern (regex)</th>
                {NUMBER_FIELDS.map(([field, label]) => (
                  <th key={field} className="w-28 py-1 pr-2 font-medium">
                    {label} $/M
                  </th>
                ))}
                <th className="w-40 py-1 pr-2 font-medium">Effective from (UTC)</th>
                {canEdit && <th className="w-10" />}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => (
                <tr
                  key={row.key}
                  className={clsx("border-t border-zinc-100 align-top dark:border-zinc-800", row.key === matchedKey && "bg-indigo-50 dark:bg-indigo-950/50")}
                  data-testid="price-row"
                  data-matched={row.key === matchedKey ? "true" : undefined}
                >
                  {canEdit ? (
                    <>
                      <td className="py-1 pr-2">
                        <CellInput value={row.modelPattern} error={errorOf(index, "modelPattern")} label={`Pattern of row ${index + 1}`} mono onChange={(v) => edit(index, "modelPattern", v)} testId="price-pattern" />
                      </td>
                      {NUMBER_FIELDS.map(([field, label]) => (
                        <td key={field} className="py-1 pr-2">
                          <CellInput value={row[field]} error={errorOf(index, field)} label={`${label} USD per million, row ${index + 1}`} inputMode="decimal" onChange={(v) => edit(index, field, v)} testId={`price-${field}`} />
                        </td>
                      ))}
                      <td className="py-1 pr-2">
                        <CellInput value={row.effectiveFrom} error={errorOf(index, "effectiveFrom")} label={`Effective from, row ${index + 1}`} type="date" onChange={(v) => edit(index, "effectiveFrom", v)} testId="price-effectiveFrom" />
                      </td>
                      <td className="py-1 text-right">
                        <button type="button" onClick={() => removeRow(index)} aria-label={`Delete row ${index + 1}`} className="rounded p-1.5 text-zinc-500 hover:bg-zinc-100 hover:text-red-600 dark:hover:bg-zinc-800" data-testid="price-delete">
                          <Trash2 className="h-4 w-4" aria-hidden />
                        </button>
                      </td>
                    </>
                  ) : (
                    <>
                      <td className="py-1.5 pr-2 font-mono text-xs">{row.modelPattern}</td>
                      {NUMBER_FIELDS.map(([field]) => (
                        <td key={field} className="py-1.5 pr-2 tabular-nums">
                          ${row[field]}
                        </td>
                      ))}
                      <td className="py-1.5 pr-2 text-zinc-500">{row.effectiveFrom}</td>
                    </>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canEdit ? (
        <div className="flex flex-wrap items-center gap-2">
          <Button type="button" variant="secondary" onClick={addRow} data-testid="price-add">
            <Plus className="h-4 w-4" aria-hidden /> Add row
          </Button>
          <Button type="button" onClick={() => save.mutate()} disabled={!dirty || save.isPending} data-testid="price-save">
            {save.isPending ? "Saving…" : "Save price table"}
          </Button>
          {dirty && (
            <Button
              type="button"
              variant="ghost"
              onClick={() => {
                setDrafts(undefined);
                setIssues({});
              }}
            >
              Discard changes
            </Button>
          )}
          {dirty && <span className="text-xs text-amber-700 dark:text-amber-400">Unsaved changes; the test match already uses them.</span>}
        </div>
      ) : (
        <p className="text-xs text-zinc-500" data-testid="prices-read-only">
          Only admins edit the price table.
        </p>
      )}
    </div>
  );
}

function CellInput({
  value,
  error,
  label,
  onChange,
  mono,
  type = "text",
  inputMode,
  testId,
}: {
  value: string;
  error?: string;
  label: string;
  onChange: (value: string) => void;
  mono?: boolean;
  type?: string;
  inputMode?: "decimal";
  testId: string;
}) {
  return (
    <>
      <input
        type={type}
        value={value}
        inputMode={inputMode}
        aria-label={label}
        aria-invalid={error ? true : undefined}
        spellCheck={false}
        onChange={(e) => onChange(e.target.value)}
        className={clsx(cellInput, mono && "font-mono text-xs", error && "border-red-500 dark:border-red-500")}
        data-testid={testId}
      />
      {error && (
        <p className="mt-0.5 text-xs text-red-600 dark:text-red-400" role="alert" data-testid="price-error">
          {error}
        </p>
      )}
    </>
  );
}
