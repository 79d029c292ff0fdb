import { Check, X } from "lucide-react";
import { DataTable } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import type { AlertEventResource } from "@/lib/features/alerts/alert-service";
import { AlertStateBadge } from "./alert-state-badge";
import { utc } from "./alert-rule-table";

/** A rule's firings, reminders and resolutions, newest first, with what each notice achieved. */
export function AlertHistory({ events }: { events: AlertEventResource[] }) {
  if (events.length === 0) return <EmptyState title="No firings yet">The rule has not gone past its threshold since it was created.</EmptyState>;
  return (
    <DataTable testId="alert-history" columns={[{ label: "When" }, { label: "What" }, { label: "Notice" }, { label: "Delivered" }]}>
      {events.map((event) => (
        <tr key={event.id} className="border-t border-zinc-100 align-top dark:border-zinc-800" data-testid="alert-event" data-state={event.reminder ? "reminder" : event.state}>
          <td className="whitespace-nowrap px-3 py-2 text-xs text-zinc-500">{utc(event.at)}</td>
          <td className="px-3 py-2">
            <AlertStateBadge state={event.reminder ? "reminder" : event.state} />
          </td>
          <td className="px-3 py-2" data-testid="alert-event-message">
            {event.message}
          </td>
          <td className="px-3 py-2 text-xs">
            {event.notified === undefined ? (
              <span className="text-zinc-500">sending…</span>
            ) : event.notified.length === 0 ? (
              <span className="text-zinc-500">no targets</span>
            ) : (
              <ul className="space-y-0.5">
                {event.notified.map((n, i) => (
                  <li key={i} className="flex items-start gap-1" title={n.error}>
                    {n.ok ? <Check className="h-3.5 w-3.5 text-emerald-600" aria-label="delivered" /> : <X className="h-3.5 w-3.5 text-red-600" aria-label="failed" />}
                    <span>
                      {n.target}
                      {n.error && <span className="block text-red-700 dark:text-red-300">{n.error}</span>}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
