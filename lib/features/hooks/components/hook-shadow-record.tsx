/**
 * The hook page's shadow record: counts of what the hook would have done on live traffic in shadow
 * mode, and its newest such rows linked to their run at the event. A server component reading the
 * promise the page started, so the rest of the page does not wait on it (its fallback is the
 * loading state, with a testid of its own: while React streams the record in, the fallback and the
 * record are both in the document for a moment).
 */
import Link from "next/link";
import type { ShadowRecordView } from "@/lib/features/hooks/hook-shadow";

const frame = "mb-4 rounded-lg border border-zinc-200 bg-white p-3 text-sm dark:border-zinc-800 dark:bg-zinc-900";

export function HookShadowRecordLoading() {
  return (
    <section className={frame} aria-busy="true" data-testid="hook-shadow-record-loading" data-state="loading">
      <h2 className="font-semibold">Shadow record</h2>
      <p className="mt-1 text-zinc-500">Loading what shadow mode recorded…</p>
    </section>
  );
}

export async function HookShadowRecord({ record, shadowNow }: { record: Promise<ShadowRecordView>; shadowNow: boolean }) {
  const view = await record;
  const empty = view.fired === 0;
  return (
    <section aria-labelledby="hook-shadow-title" className={frame} data-testid="hook-shadow-record" data-state={empty ? "empty" : "loaded"}>
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
        <h2 id="hook-shadow-title" className="font-semibold">
          Shadow record, last {view.windowDays} days
        </h2>
        {!empty && (
          <>
            <span>
              <span className="text-zinc-500 dark:text-zinc-400">fired</span> <span data-testid="shadow-fired">{view.fired}</span>
            </span>
            <span>
              <span className="text-zinc-500 dark:text-zinc-400">would have blocked</span> <span data-testid="shadow-would-block">{view.wouldBlock}</span>
            </span>
            <span>
              <span className="text-zinc-500 dark:text-zinc-400">in runs</span> <span data-testid="shadow-runs">{view.runs}</span>
            </span>
            {view.failed > 0 && (
              <span>
                <span className="text-zinc-500 dark:text-zinc-400">failed</span> <span data-testid="shadow-failed">{view.failed}</span>
              </span>
            )}
          </>
        )}
      </div>
      {empty ? (
        <p className="mt-1 text-zinc-500" data-testid="shadow-empty">
          {shadowNow
            ? "Nothing recorded yet: in shadow mode this hook records on live traffic what it would have done, without blocking."
            : "Nothing recorded: set the mode to shadow to record on live traffic what this hook would do before it enforces. The test panel below replays it over past sessions."}
        </p>
      ) : (
        <ul className="mt-2 space-y-1 text-xs">
          {view.latest.map((row) => (
            <li key={row.id} className="flex flex-wrap gap-x-2" data-testid="shadow-row" data-verdict={row.verdict ?? ""}>
              <span className="text-zinc-500">{row.at.slice(0, 16).replace("T", " ")}</span>
              {row.runPath ? (
                <Link href={row.runPath} className="font-mono text-indigo-600 hover:underline dark:text-indigo-400" data-testid="shadow-row-link">
                  {row.agentName ?? "run"}
                  {row.toolName ? ` · ${row.toolName}` : ""}
                </Link>
              ) : (
                <span className="font-mono">{row.agentName ?? ""}</span>
              )}
              <span className={row.verdict === "block" ? "font-medium text-red-700 dark:text-red-300" : ""}>would {row.failed ? "fail" : (row.verdict ?? "allow")}</span>
              {row.reason && <span className="min-w-0 break-words text-zinc-600 dark:text-zinc-400">{row.reason}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
