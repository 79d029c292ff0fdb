"use client";

import { useState } from "react";
import { formatUsd } from "@/lib/core/hooks/event-summary";
import { inputClass } from "@/components/ui/field";
import { costOfUsage } from "@/lib/core/costs/price-table";
import { matchDraft, type PriceDraft } from "./price-draft";

const tokenField = (value: string) => Math.max(0, Math.floor(Number(value) || 0));

/**
 * "Which price would this model get?" answered by the same pickPrice the runs use, over the rows
 * as they stand in the editor (unsaved edits included), for a sample usage.
 */
export function PriceMatchTester({ drafts, model, onModelChange }: { drafts: PriceDraft[]; model: string; onModelChange: (model: string) => void }) {
  const [usage, setUsage] = useState({ inputTokens: "10000", outputTokens: "2000", cachedTokens: "0" });
  const match = matchDraft(drafts, model);
  const cost = costOfUsage(match, {
    inputTokens: tokenField(usage.inputTokens),
    outputTokens: tokenField(usage.outputTokens),
    cachedTokens: tokenField(usage.cachedTokens),
  });

  return (
    <div className="rounded-lg border border-zinc-200 bg-zinc-50 p-4 dark:border-zinc-800 dark:bg-zinc-950" data-testid="price-test">
      <h3 className="mb-3 text-sm font-semibold">Test match</h3>
      <div className="grid gap-3 sm:grid-cols-[1fr_8rem_8rem_8rem]">
        <label className="text-xs">
          <span className="mb-1 block text-zinc-500">Model name</span>
          <input className={`${inputClass} font-mono`} value={model} onChange={(e) => onModelChange(e.target.value)} spellCheck={false} data-testid="price-test-model" />
        </label>
        {(["inputTokens", "outputTokens", "cachedTokens"] as const).map((field) => (
          <label key={field} className="text-xs">
            <span className="mb-1 block text-zinc-500">{field === "inputTokens" ? "Input tokens" : field === "outputTokens" ? "Output tokens" : "of which cached"}</span>
            <input
              type="number"
              min={0}
              className={inputClass}
              value={usage[field]}
              onChange={(e) => setUsage({ ...usage, [field]: e.target.value })}
              data-testid={`price-test-${field}`}
            />
          </label>
        ))}
      </div>
      <div className="mt-3 text-sm" role="status" aria-live="polite" data-testid="price-match-result">
        {!model.trim() ? (
          <span className="text-zinc-500">Type a model name, as agents write it (openai:gpt-4.1-mini, scripted).</span>
        ) : match ? (
          <>
            Matches <code className="rounded bg-zinc-200 px-1 font-mono text-xs dark:bg-zinc-800" data-testid="price-match-pattern">{match.modelPattern}</code>{" "}
            (since {match.effectiveFrom.toISOString().slice(0, 10)}): ${match.inputUsdPerM} in / ${match.outputUsdPerM} out / ${match.cachedUsdPerM} cached per million. This usage costs{" "}
            <strong data-testid="price-match-cost">{formatUsd(cost)}</strong>.
          </>
        ) : (
          <span className="text-amber-700 dark:text-amber-400" data-testid="price-no-match">
            No row matches: runs of this model would cost $0. Add a row whose pattern matches it.
          </span>
        )}
      </div>
    </div>
  );
}
