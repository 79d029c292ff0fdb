import { clsx } from "clsx";
import Link from "next/link";

export const AUDIT_TABS = [
  { value: "sessions", label: "Sessions", adminOnly: false },
  { value: "ledger", label: "Hook ledger", adminOnly: false },
  { value: "changes", label: "Config changes", adminOnly: false },
  // The integrity check names rows and hashes of both chains, every project's; like its API, instance admins only.
  { value: "integrity", label: "Integrity", adminOnly: true },
] as const;
export type AuditTab = (typeof AUDIT_TABS)[number]["value"];

function visibleTabs(isAdmin: boolean) {
  return AUDIT_TABS.filter((t) => isAdmin || !t.adminOnly);
}

/** The tab a URL asks for, when this user may see it; else the first. */
export function auditTabOf(value: string | string[] | undefined, isAdmin: boolean): AuditTab {
  return visibleTabs(isAdmin).find((t) => t.value === value)?.value ?? "sessions";
}

/** Tabs are links (`?tab=ledger`), so the open tab is part of a shared URL. */
export function AuditTabs({ current, isAdmin }: { current: AuditTab; isAdmin: boolean }) {
  return (
    <nav className="mb-5 flex gap-1 border-b border-zinc-200 dark:border-zinc-800" aria-label="Audit views">
      {visibleTabs(isAdmin).map((tab) => (
        <Link
          key={tab.value}
          href={`/audit?tab=${tab.value}`}
          aria-current={tab.value === current ? "page" : undefined}
          className={clsx(
            "-mb-px border-b-2 px-3 py-2 text-sm",
            tab.value === current
              ? "border-indigo-600 font-medium text-indigo-700 dark:border-indigo-400 dark:text-indigo-300"
              : "border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100",
          )}
          data-testid={`audit-tab-${tab.value}`}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
