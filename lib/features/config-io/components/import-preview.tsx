"use client";

import { clsx } from "clsx";
import Link from "next/link";
import type { ImportSummary, ItemOutcome } from "@/lib/features/config-io/config-import";
import { enforcementMark, type EnforcementBadge } from "@/lib/features/hooks/components/hook-badges";

const OUTCOME_STYLE: Record<ItemOutcome, string> = {
  create: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300",
  update: "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300",
  skip: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  conflict: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
};

/** Why a hook of the file will not be enforced as it says, in a word. */
const NOT_ENFORCED_LABEL: Record<ImportSummary["notEnforced"][number]["state"], string> = {
  not_enforced: "cannot run here",
  fails_closed: "fails closed",
  not_imported: "not imported",
  changed: "imported with less",
};

function Outcome({ outcome }: { outcome: ItemOutcome }) {
  return <span className={clsx("rounded px-1.5 py-0.5 text-xs font-medium", OUTCOME_STYLE[outcome])}>{outcome}</span>;
}

function Section({ title, count, children, testId }: { title: string; count: number; children: React.ReactNode; testId: string }) {
  return (
    <section className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900" data-testid={testId}>
      <h3 className="mb-2 text-sm font-semibold">
        {title} <span className="font-normal text-zinc-500">({count})</span>
      </h3>
      {count === 0 ? <p className="text-sm text-zinc-500">None.</p> : children}
    </section>
  );
}

/** What an import will do (or did): agents, hooks grouped by event, schedules, and every warning with its path. */
export function ImportPreview({ summary }: { summary: ImportSummary }) {
  const byEvent = new Map<string, ImportSummary["hooks"]>();
  for (const hook of summary.hooks) byEvent.set(hook.event, [...(byEvent.get(hook.event) ?? []), hook]);
  return (
    <div className="space-y-4" data-testid="import-preview">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Read as <strong>{summary.dialect}</strong>
        {summary.detected ? ` (detected: ${summary.detected.why})` : ""}.
      </p>
      {summary.requiresAdmin.length > 0 && (
        <p role="note" className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-200" data-testid="import-requires-admin">
          {summary.requiresAdmin.length} item(s) run code on the server (command or code hooks, shell tool hooks, agents with the shell): only an admin can apply this import ({summary.requiresAdmin.join(", ")}).
        </p>
      )}
      {summary.conflicts.length > 0 && (
        <div role="note" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200" data-testid="import-conflicts">
          <p className="font-medium">{summary.conflicts.length} item(s) already exist. Choose to keep or replace them before applying:</p>
          <ul className="mt-1 space-y-0.5">
            {summary.conflicts.map((c) => (
              <li key={c.path}>
                <code className="text-xs">{c.path}</code> {c.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Section title="Agents" count={summary.agents.length} testId="preview-agents">
          <ul className="space-y-1 text-sm">
            {summary.agents.map((agent) => (
              <li key={agent.name} className="flex items-center gap-2">
                <Outcome outcome={agent.outcome} />
                {agent.id && !summary.dry ? (
                  <Link href={`/agents/${agent.id}`} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400" data-testid="imported-agent-link">
                    {agent.name}
                  </Link>
                ) : (
                  <span className="font-medium">{agent.name}</span>
                )}
                {agent.implicit && <span className="text-xs text-zinc-500">named by hooks; default settings</span>}
              </li>
            ))}
          </ul>
        </Section>
        <Section title="Schedules" count={summary.schedules.length} testId="preview-schedules">
          <ul className="space-y-1 text-sm">
            {summary.schedules.map((s) => (
              <li key={s.path} className="flex flex-wrap items-center gap-2">
                <Outcome outcome={s.outcome} />
                <span className="font-medium">{s.name}</span>
                <span className="text-zinc-500">
                  {s.agent} · {s.cron ? `cron ${s.cron}` : `every ${Math.round((s.intervalMs ?? 0) / 1000)} s`} · {s.hooks} hook(s)
                </span>
              </li>
            ))}
          </ul>
        </Section>
      </div>
      {summary.notEnforced.length > 0 && (
        <div role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200" data-testid="preview-not-enforced">
          <p className="font-medium">
            {summary.notEnforced.length} hook(s) of this file will not be enforced as it says:
          </p>
          <ul className="mt-1 list-disc space-y-0.5 pl-5">
            {summary.notEnforced.map((h, i) => (
              <li key={`${h.path}-${i}`} data-testid="preview-not-enforced-item" data-state={h.state}>
                <span className="font-semibold">{NOT_ENFORCED_LABEL[h.state]}</span>: {h.id ? <span className="font-mono">{h.id}</span> : null} <code className="text-xs">{h.path || "(file)"}</code>: {h.why}
                {h.why.endsWith(".") ? "" : "."}
              </li>
            ))}
          </ul>
        </div>
      )}
      <Section title="Hooks" count={summary.hooks.length} testId="preview-hooks">
        <div className="space-y-3">
          {[...byEvent.entries()].map(([event, hooks]) => (
            <div key={event}>
              <h4 className="mb-1 font-mono text-xs font-semibold text-zinc-600 dark:text-zinc-400">{event}</h4>
              <ul className="space-y-1 text-sm">
                {hooks.map((hook) => (
                  <li key={hook.path} className="flex flex-wrap items-center gap-2" data-testid="preview-hook">
                    <Outcome outcome={hook.outcome} />
                    <span className="font-mono">{hook.id}</span>
                    <span className="rounded bg-zinc-100 px-1.5 text-xs dark:bg-zinc-800">{hook.action}</span>
                    {hook.matcher && <span className="text-xs text-zinc-500">matcher {hook.matcher}</span>}
                    <span className="text-xs text-zinc-500">{hook.scope}</span>
                    <EnforcementNote enforcement={hook.enforcement} />
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      </Section>
      <Section title="Warnings" count={summary.warnings.length} testId="preview-warnings">
        <ul className="space-y-1 text-sm">
          {summary.warnings.map((w, i) => (
            <li key={i} className="flex gap-2">
              <code className="shrink-0 rounded bg-amber-50 px-1 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200">{w.path || "(file)"}</code>
              <span>{w.message}</span>
            </li>
          ))}
        </ul>
      </Section>
    </div>
  );
}

/** Where an imported hook will not be enforced here (red), or runs on the developers' machines (sky), and why. */
function EnforcementNote({ enforcement }: { enforcement: EnforcementBadge }) {
  const mark = enforcementMark(enforcement);
  if (!mark) return null;
  const tone = mark.tone === "red" ? "bg-red-50 text-red-700 dark:bg-red-950 dark:text-red-300" : "bg-sky-50 text-sky-800 dark:bg-sky-950 dark:text-sky-200";
  return (
    <span className={`rounded px-1.5 text-xs font-medium ${tone}`} title={mark.why} data-testid="preview-hook-enforcement">
      {mark.label}
    </span>
  );
}
