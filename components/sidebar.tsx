"use client";

import { clsx } from "clsx";
import { Activity, Anchor, BellRing, Bot, DollarSign, ScrollText, Settings, ShieldCheck, Upload, Webhook } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOutAction } from "@/lib/platform/auth/auth-actions";
import type { Role } from "@/db/schema";
import { usePendingApprovalCount } from "../lib/features/approvals/components/use-pending-approvals";
import { ProjectSwitcher, type SwitcherProject } from "./project-switcher";
import { ThemeToggle } from "./theme-toggle";

/** Only sections that exist are linked. */
const SECTIONS = [
  { href: "/agents", label: "Agents", icon: Bot },
  { href: "/hooks", label: "Hooks", icon: Anchor },
  { href: "/runs", label: "Runs", icon: Activity },
  { href: "/approvals", label: "Approvals", icon: ShieldCheck },
  { href: "/audit", label: "Audit", icon: ScrollText },
  { href: "/costs", label: "Costs", icon: DollarSign },
  { href: "/alerts", label: "Alerts", icon: BellRing },
  { href: "/import", label: "Import", icon: Upload },
  { href: "/settings", label: "Settings", icon: Settings },
] as const;

export function Sidebar({ email, role, projects, project }: { email: string; role: Role; projects: SwitcherProject[]; project: string }) {
  const pathname = usePathname();
  const pendingApprovals = usePendingApprovalCount();
  return (
    <aside className="flex w-56 shrink-0 flex-col border-r border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
      <div className="flex items-center gap-2 px-4 py-4">
        <Webhook className="h-5 w-5 text-indigo-600" aria-hidden />
        <span className="text-base font-semibold tracking-tight">Hookplane</span>
      </div>
      <ProjectSwitcher projects={projects} current={project} />
      <nav className="flex-1 space-y-1 px-2" aria-label="Sections">
        {SECTIONS.map(({ href, label, icon: Icon }) => {
          const active = pathname === href || pathname.startsWith(`${href}/`);
          return (
            <Link
              key={href}
              href={href}
              aria-current={active ? "page" : undefined}
              data-testid={`nav-${label.toLowerCase()}`}
              className={clsx(
                "flex items-center gap-2 rounded-md px-3 py-2 text-sm",
                active
                  ? "bg-indigo-50 font-medium text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300"
                  : "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800",
              )}
            >
              <Icon className="h-4 w-4" aria-hidden />
              {label}
              {href === "/approvals" && pendingApprovals ? (
                <span
                  className="ml-auto rounded-full bg-violet-600 px-1.5 text-xs font-semibold text-white"
                  data-testid="pending-approvals-count"
                  aria-label={`${pendingApprovals} waiting`}
                >
                  {pendingApprovals}
                </span>
              ) : null}
            </Link>
          );
        })}
      </nav>
      <div className="border-t border-zinc-200 p-3 text-xs dark:border-zinc-800">
        <div className="truncate font-medium" data-testid="current-user">
          {email}
        </div>
        <div className="mb-2 text-zinc-500" data-testid="current-role">
          {role}
        </div>
        <div className="flex items-center justify-between">
          <form action={signOutAction}>
            <button type="submit" className="text-zinc-600 hover:underline dark:text-zinc-400" data-testid="sign-out">
              Sign out
            </button>
          </form>
          <ThemeToggle />
        </div>
      </div>
    </aside>
  );
}
