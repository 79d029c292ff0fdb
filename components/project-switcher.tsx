"use client";

import { useState, useTransition } from "react";
import { switchProjectAction } from "@/lib/platform/auth/project-actions";
import { Options } from "@/components/ui/field";

/** The BroadcastChannel a switch is announced on, to the browser's other tabs (ProjectElsewhereBanner). */
export const PROJECT_SWITCH_CHANNEL = "hookplane:project-switch";

/** This tab, so its own banner does not answer its own switch. */
export const THIS_TAB = typeof crypto !== "undefined" && "randomUUID" in crypto ? crypto.randomUUID() : String(Math.random());

function announceSwitch(slug: string) {
  if (typeof BroadcastChannel === "undefined") return;
  const channel = new BroadcastChannel(PROJECT_SWITCH_CHANNEL);
  channel.postMessage({ slug, tab: THIS_TAB });
  channel.close();
}

export interface SwitcherProject {
  slug: string;
  name: string;
  role: string;
}

/**
 * The project every page acts in. Choosing another remembers it (the `hp_project` cookie, set by
 * a server action that checks the person may reach it) and reloads, so nothing on the page
 * still shows the old project's data. A person in one project sees its name, not a menu.
 */
export function ProjectSwitcher({ projects, current }: { projects: SwitcherProject[]; current: string }) {
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string>();
  const here = projects.find((p) => p.slug === current);
  if (projects.length <= 1) {
    return (
      <div className="px-4 pb-3 text-xs text-zinc-500" data-testid="current-project">
        Project: <span className="font-medium text-zinc-700 dark:text-zinc-300">{here?.name ?? current}</span>
      </div>
    );
  }
  return (
    <div className="px-4 pb-3">
      <label htmlFor="project-switcher" className="mb-1 block text-xs text-zinc-500">
        Project
      </label>
      <select
        id="project-switcher"
        data-testid="project-switcher"
        value={current}
        disabled={pending}
        aria-busy={pending}
        onChange={(e) => {
          const slug = e.target.value;
          setError(undefined);
          startTransition(async () => {
            const result = await switchProjectAction({ slug });
            if (result.ok) {
              announceSwitch(slug);
              window.location.reload();
            }
            else setError(result.message ?? "Could not switch project");
          });
        }}
        className="w-full rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 disabled:opacity-60 dark:border-zinc-700 dark:bg-zinc-900"
      >
        <Options choices={projects.map((p) => ({ value: p.slug, label: `${p.name} (${p.role})` }))} />
      </select>
      {error && (
        <p role="alert" className="mt-1 text-xs text-red-600 dark:text-red-400" data-testid="project-switcher-error">
          {error}
        </p>
      )}
    </div>
  );
}
