import type { ReactNode } from "react";

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

/** A moment in the settings tables: minutes in UTC, or "never". */
export const settingsTime = (d: Date | null) => (d ? d.toISOString().replace("T", " ").slice(0, 16) : "never");
