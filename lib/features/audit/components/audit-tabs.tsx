import { TabLinks } from "@/components/ui/tab-links";

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
    <TabLinks
      label="Audit views"
      tabs={visibleTabs(isAdmin).map((tab) => ({ href: `/audit?tab=${tab.value}`, label: tab.label, current: tab.value === current, testId: `audit-tab-${tab.value}` }))}
    />
  );
}
