"use client";

import { useEffect, useState } from "react";
import { PROJECT_SWITCH_CHANNEL, THIS_TAB } from "@/components/project-switcher";

/**
 * The project is one choice per browser (the `hp_project` cookie): when another tab switches, the
 * next page this tab loads is in the new project while what it shows, and its live updates, are
 * still the old one's. Says so at once (the switcher announces on a BroadcastChannel) rather than
 * reloading under the person, who may be typing.
 */
export function ProjectElsewhereBanner({ current }: { current: string }) {
  const [switchedTo, setSwitchedTo] = useState<string>();
  useEffect(() => {
    if (typeof BroadcastChannel === "undefined") return;
    const channel = new BroadcastChannel(PROJECT_SWITCH_CHANNEL);
    channel.onmessage = (event: MessageEvent<{ slug?: unknown; tab?: unknown }>) => {
      if (event.data?.tab === THIS_TAB) return;
      const slug = typeof event.data?.slug === "string" ? event.data.slug : undefined;
      setSwitchedTo(slug && slug !== current ? slug : undefined);
    };
    return () => channel.close();
  }, [current]);
  if (!switchedTo) return null;
  return (
    <div role="status" className="mb-4 rounded-md bg-sky-50 px-4 py-3 text-sm text-sky-900 dark:bg-sky-950 dark:text-sky-100" data-testid="project-elsewhere">
      Another tab switched to project <span className="font-medium">{switchedTo}</span>: this page still shows{" "}
      <span className="font-medium">{current}</span>, and the next page you open here will be in {switchedTo}.{" "}
      <button type="button" onClick={() => window.location.reload()} className="font-medium underline focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-500">
        Reload in {switchedTo}
      </button>
    </div>
  );
}
