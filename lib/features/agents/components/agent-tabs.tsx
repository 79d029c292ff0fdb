import { TabLinks } from "@/components/ui/tab-links";

export type AgentTab = "runs" | "settings";

/**
 * An agent's page is about its runs; its settings are a tab away. Tabs are links (`?tab=settings`),
 * so the open tab is part of a shared URL; a save lands back on the settings it saved (`?saved=1`).
 */
export function agentTabOf(search: Record<string, string | string[] | undefined>): AgentTab {
  return search.tab === "settings" || search.saved !== undefined ? "settings" : "runs";
}

export function AgentTabs({ agentId, current }: { agentId: string; current: AgentTab }) {
  const tabs: { value: AgentTab; label: string; href: string }[] = [
    { value: "runs", label: "Runs", href: `/agents/${agentId}` },
    { value: "settings", label: "Settings", href: `/agents/${agentId}?tab=settings` },
  ];
  return <TabLinks label="Agent views" tabs={tabs.map((tab) => ({ href: tab.href, label: tab.label, current: tab.value === current, testId: `agent-tab-${tab.value}` }))} />;
}
