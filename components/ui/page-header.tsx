import type { ReactNode } from "react";

/** A page's title, what it is, and its actions; on a narrow screen the actions wrap under the title, never clipped. */
export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-start justify-between gap-4">
      <div className="min-w-0">
        <h1 className="break-words text-xl font-semibold tracking-tight">{title}</h1>
        {description && <div className="mt-1 break-words text-sm text-zinc-500 dark:text-zinc-400">{description}</div>}
      </div>
      {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
    </div>
  );
}
