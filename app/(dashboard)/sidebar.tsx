"use client";

import { clsx } from "clsx";
import { Activity, Anchor, BellRing, Bot, CalendarClock, DollarSign, House, Menu, ScrollText, Settings, ShieldCheck, Upload, Webhook, X } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { signOutAction } from "@/lib/platform/auth/auth-actions";
import type { Role } from "@/db/schema";
import { usePendingApprovalCount } from "@/lib/features/approvals/components/use-pending-approvals";
import { ProjectSwitcher, type SwitcherProject } from "@/components/project-switcher";
import { ThemeToggle } from "@/components/theme-toggle";

/** Only sections that exist are linked. */
const SECTIONS = [
  { href: "/", label: "Home", icon: House },
  { href: "/agents", label: "Agents", icon: Bot },
  { href: "/hooks", label: "Hooks", icon: Anchor },
  { href: "/runs", label: "Runs", icon: Activity },
  { href: "/approvals", label: "Approvals", icon: ShieldCheck },
  { href: "/audit", label: "Audit", icon: ScrollText },
  { href: "/costs", label: "Costs", icon: DollarSign },
  { href: "/schedules", label: "Schedules", icon: CalendarClock },
  { href: "/alerts", label: "Alerts", icon: BellRing },
  { href: "/import", label: "Import", icon: Upload },
  { href: "/settings", label: "Settings", icon: Settings },
] as const;

/**
 * The sections, the project and the person. From the md breakpoint (768 px) a fixed column; below
 * it a top bar with a menu button that opens the same column as a drawer over the page (closed by
 * a choice, Escape or a tap outside), so a phone keeps its whole width for the page.
 */
export function Sidebar({ email, role, projects, project }: { email: string; role: Role; projects: SwitcherProject[]; project: string }) {
  const pathname = usePathname();
  const pendingApprovals = usePendingApprovalCount();
  const [open, setOpen] = useState(false);
  const closeButton = useRef<HTMLButtonElement>(null);
  const menuButton = useRef<HTMLButtonElement>(null);
  // A choice closes the drawer (the page changes under it).
  const [shownFor, setShownFor] = useState(pathname);
  if (shownFor !== pathname) {
    setShownFor(pathname);
    setOpen(false);
  }
  useEffect(() => {
    if (!open) return;
    closeButton.current?.focus();
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      menuButton.current?.focus();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [open]);
  return (
    <>
    <header className="sticky top-0 z-30 flex items-center gap-2 border-b border-zinc-200 bg-white px-3 py-2 md:hidden dark:border-zinc-800 dark:bg-zinc-900">
      <button
        ref={menuButton}
        type="button"
        onClick={() => setOpen(true)}
        aria-expanded={open}
        aria-controls="dashboard-sidebar"
        aria-label="Open the menu"
        className="rounded-md p-2 text-zinc-700 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-zinc-200 dark:hover:bg-zinc-800"
        data-testid="menu-button"
      >
        <Menu className="h-5 w-5" aria-hidden />
      </button>
      <Webhook className="h-5 w-5 text-indigo-600" aria-hidden />
      <span className="text-base font-semibold tracking-tight">Hookplane</span>
      {pendingApprovals ? (
        <Link href="/approvals" className="ml-auto rounded-full bg-violet-600 px-2 py-0.5 text-xs font-semibold text-white" aria-label={`${pendingApprovals} approvals waiting`}>
          {pendingApprovals} waiting
        </Link>
      ) : null}
    </header>
    {open && <div className="fixed inset-0 z-40 bg-black/40 md:hidden" onClick={() => setOpen(false)} aria-hidden data-testid="menu-backdrop" />}
    <aside
      id="dashboard-sidebar"
      className={clsx(
        "w-64 shrink-0 flex-col border-r border-zinc-200 bg-white md:static md:z-auto md:flex md:w-56 dark:border-zinc-800 dark:bg-zinc-900",
        open ? "fixed inset-y-0 left-0 z-50 flex overflow-y-auto shadow-xl" : "hidden",
      )}
      data-testid="sidebar"
    >
      <div className="flex items-center gap-2 px-4 py-4">
        <Webhook className="h-5 w-5 text-indigo-600" aria-hidden />
        <span className="text-base font-semibold tracking-tight">Hookplane</span>
        <button
          ref={closeButton}
          type="button"
          onClick={() => {
            setOpen(false);
            menuButton.current?.focus();
          }}
          aria-label="Close the menu"
          className="ml-auto rounded-md p-1.5 text-zinc-600 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-indigo-500 md:hidden dark:text-zinc-300 dark:hover:bg-zinc-800"
          data-testid="menu-close"
        >
          <X className="h-5 w-5" aria-hidden />
        </button>
      </div>
      <ProjectSwitcher projects={projects} current={project} />
      <nav
        className="flex-1 space-y-1 px-2"
        aria-label="Sections"
        // Choosing a section closes the drawer, the one already shown included (no path change then).
        onClick={(e) => {
          if ((e.target as HTMLElement).closest("a")) setOpen(false);
        }}
      >
        {SECTIONS.map(({ href, label, icon: Icon }) => {
          const active = pathname === href || (href !== "/" && pathname.startsWith(`${href}/`));
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
    </>
  );
}
