"use client";

import Link from "next/link";
import { useState } from "react";
import { inputClass } from "@/components/ui/field";
import { EVENT_NAMES } from "@/lib/core/hooks/events";
import { enforcementMark } from "@/lib/features/hooks/components/hook-badges";
import type { HookListItem } from "@/lib/features/hooks/schema";

const SCOPE_ORDER = ["global", "group", "person", "agent", "schedule"];
const scopeKind = (scope: string) => scope.split(":", 1)[0];

/**
 * The chain an event of this agent will run, as the runtime runs it: global hooks first, then a
 * group's and a person's (those hold only for their people's calls), then the agent's, each in its
 * order; the first block stops it. Disabled hooks are struck through; hooks that cannot run here
 * are marked in red.
 */
export function EffectiveChain({ hooks, killSwitch }: { hooks: HookListItem[]; killSwitch: boolean }) {
  const bound = new Set<string>(hooks.map((h) => h.spec.event));
  const [event, setEvent] = useState<string>(bound.has("tool.pre") ? "tool.pre" : (hooks[0]?.spec.event ?? "tool.pre"));
  const chain = hooks.filter((h) => h.spec.event === event).sort((a, b) => SCOPE_ORDER.indexOf(scopeKind(a.scope)) - SCOPE_ORDER.indexOf(scopeKind(b.scope)));
  return (
    <section aria-labelledby="chain-title" className="space-y-2" data-testid="effective-chain">
      <div className="flex items-center justify-between gap-2">
        <h2 id="chain-title" className="text-sm font-semibold">
          Effective chain
        </h2>
        <select aria-label="Event" value={event} onChange={(e) => setEvent(e.target.value)} className={`${inputClass} w-auto py-1 text-xs`}>
          {EVENT_NAMES.map((name) => (
            <option key={name} value={name}>
              {name}
              {bound.has(name) ? " •" : ""}
            </option>
          ))}
        </select>
      </div>
      {killSwitch && <p className="text-xs font-medium text-red-600">The kill switch is on: no hook runs.</p>}
      {chain.length === 0 ? (
        <p className="text-xs text-zinc-500">No hook runs on {event} for this agent.</p>
      ) : (
        <ol className="space-y-1 text-sm" data-testid="chain-hooks">
          {chain.map((hook, i) => {
            const action = hook.spec.action.type;
            const mark = enforcementMark(hook.enforcement);
            return (
              <li key={hook.id} className={`flex items-baseline gap-2 ${hook.enabled ? "" : "text-zinc-500 line-through"}`}>
                <span className="w-5 text-right font-mono text-xs text-zinc-500">{i + 1}</span>
                <Link href={`/hooks/${hook.id}`} className="font-mono text-xs hover:underline">
                  {hook.key}
                </Link>
                <span className="text-xs text-zinc-500">
                  {action} · {scopeKind(hook.scope) === "group" ? hook.scope.replace(":", " ") : scopeKind(hook.scope) === "person" ? "one person" : scopeKind(hook.scope)}
                  {hook.spec.mode === "shadow" ? " · shadow" : ""}
                  {typeof hook.spec.matcher === "string" ? ` · ${hook.spec.matcher}` : ""}
                </span>
                {(hook.health?.state === "failing" || hook.health?.state === "flaky") && (
                  <span
                    className={`text-xs font-medium ${hook.health.state === "failing" ? "text-red-600 dark:text-red-400" : "text-amber-700 dark:text-amber-300"}`}
                    title={hook.health.lastError}
                    data-testid="chain-health"
                  >
                    {hook.health.state === "failing" ? "failing" : `${hook.health.failed} failed`}
                  </span>
                )}
                {mark && (
                  <span className={`text-xs font-medium ${mark.tone === "red" ? "text-red-600 dark:text-red-400" : "text-sky-700 dark:text-sky-300"}`} title={mark.why} data-testid="chain-enforcement">
                    {mark.label}
                  </span>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
