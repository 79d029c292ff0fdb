import Link from "next/link";
import type { ReactNode } from "react";

/**
 * A page's title, what it is, and its actions; on a narrow screen the actions wrap under the title,
 * never clipped. `back`: the list a detail page belongs to, linked above the title.
 */
export function PageHeader({ title, description, actions, back }: { title: string; description?: ReactNode; actions?: ReactNode; back?: { href: string; label: string } }) {
  return (
    <>
      {back && (
        <nav className="mb-2 text-sm">
          <Link href={back.href} className="text-indigo-600 hover:underline dark:text-indigo-400">
            ← {back.label}
          </Link>
        </nav>
      )}
      <div className="mb-6 flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <h1 className="break-words text-xl font-semibold tracking-tight">{title}</h1>
          {description && <div className="mt-1 break-words text-sm text-zinc-500 dark:text-zinc-400">{description}</div>}
        </div>
        {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
      </div>
    </>
  );
}
