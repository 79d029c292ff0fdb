import type { ReactNode } from "react";
import { DataTable, type Column } from "@/components/ui/data-table";

/** One card of a settings page: its title, what it is for, and its content. */
export function SettingsSection({ title, description, children, testId, id }: { title: string; description: string; children: ReactNode; testId?: string; id?: string }) {
  return (
    <section id={id} className="scroll-mt-6 rounded-lg border border-zinc-200 bg-white p-5 dark:border-zinc-800 dark:bg-zinc-900" data-testid={testId}>
      <h2 className="text-sm font-semibold">{title}</h2>
      <p className="mb-4 text-sm text-zinc-500">{description}</p>
      {children}
    </section>
  );
}

/**
 * A section's list, above the form that adds to it: a plain table, one `row` an item, or while
 * there is none, a line saying so (`empty`, its text and test id).
 */
export function SettingsTable<T>({
  items,
  testId,
  columns,
  empty,
  row,
}: {
  items: readonly T[];
  testId: string;
  columns: Column[];
  empty?: { testId: string; text: ReactNode };
  row: (item: T) => ReactNode;
}) {
  if (items.length === 0 && empty) {
    return (
      <p className="mb-4 text-sm text-zinc-500" data-testid={empty.testId}>
        {empty.text}
      </p>
    );
  }
  return (
    <DataTable variant="plain" testId={testId} className="mb-4" columns={columns}>
      {items.map(row)}
    </DataTable>
  );
}

/** One row of a settings table. */
export function SettingsRow({ testId, children }: { testId: string; children: ReactNode }) {
  return (
    <tr className="border-t border-zinc-100 dark:border-zinc-800" data-testid={testId}>
      {children}
    </tr>
  );
}

/** A name in a settings table, marked where it is the signed-in person's ("you") or gone ("removed"). */
export function MarkedName({ name, marks, className = "text-xs" }: { name: string; marks: (string | false)[]; className?: string }) {
  return (
    <>
      {name}
      {marks.map((mark) => mark && <span key={mark} className={`ml-2 ${className} text-zinc-500`}>({mark})</span>)}
    </>
  );
}

/** How a person signs in: with a password, through single sign-on, both, or (an account not yet usable) neither. */
export function signsInWith(u: { hasPassword: boolean; id: string }, identities: Map<string, string[]>): string {
  return [...(u.hasPassword ? ["password"] : []), ...(identities.has(u.id) ? ["single sign-on"] : [])].join(", ") || "—";
}

/** A moment in the settings tables: minutes in UTC, or "never". */
export const settingsTime = (d: Date | null) => (d ? d.toISOString().replace("T", " ").slice(0, 16) : "never");
