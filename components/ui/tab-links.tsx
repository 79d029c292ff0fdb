import { clsx } from "clsx";
import Link from "next/link";

export interface TabLink {
  href: string;
  label: string;
  current: boolean;
  testId: string;
}

/**
 * Tabs that are links: the open tab is part of a shared URL, and the current one is marked for
 * screen readers (`aria-current`). The audit views, an agent's runs and settings, the settings pages.
 */
export function TabLinks({ label, tabs, className = "mb-5" }: { label: string; tabs: TabLink[]; className?: string }) {
  return (
    <nav className={clsx("flex flex-wrap gap-1 border-b border-zinc-200 dark:border-zinc-800", className)} aria-label={label}>
      {tabs.map((tab) => (
        <Link
          key={tab.href}
          href={tab.href}
          aria-current={tab.current ? "page" : undefined}
          className={clsx(
            "-mb-px border-b-2 px-3 py-2 text-sm",
            tab.current
              ? "border-indigo-600 font-medium text-indigo-700 dark:border-indigo-400 dark:text-indigo-300"
              : "border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100",
          )}
          data-testid={tab.testId}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
