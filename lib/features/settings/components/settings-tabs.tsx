"use client";

import { usePathname } from "next/navigation";
import { TabLinks } from "@/components/ui/tab-links";

export interface SettingsTab {
  href: string;
  label: string;
}

/** The settings pages, one link each; the current one is the page open. */
export function SettingsTabs({ tabs }: { tabs: SettingsTab[] }) {
  const pathname = usePathname();
  return (
    <div data-testid="settings-tabs">
      <TabLinks label="Settings pages" className="mb-6" tabs={tabs.map((tab) => ({ ...tab, current: pathname === tab.href, testId: `settings-tab-${tab.href.split("/").pop()}` }))} />
    </div>
  );
}
