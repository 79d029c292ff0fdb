import { clsx } from "clsx";
import Link from "next/link";
import { CODING_AGENTS, CODING_AGENT_GUIDES, connectPagePath, type CodingAgent } from "@/lib/features/bridge/connect-instructions";

/** Tabs are links (`?agent=codex`), so the chosen coding agent is part of the URL to share. */
export function CodingAgentTabs({ agentId, current }: { agentId: string; current: CodingAgent }) {
  return (
    <nav className="mb-6 flex flex-wrap gap-1 border-b border-zinc-200 dark:border-zinc-800" aria-label="Coding agent">
      {CODING_AGENTS.map((codingAgent) => (
        <Link
          key={codingAgent}
          href={connectPagePath(agentId, codingAgent)}
          aria-current={codingAgent === current ? "page" : undefined}
          className={clsx(
            "-mb-px border-b-2 px-3 py-2 text-sm",
            codingAgent === current
              ? "border-indigo-600 font-medium text-indigo-700 dark:border-indigo-400 dark:text-indigo-300"
              : "border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100",
          )}
          data-testid={`connect-tab-${codingAgent}`}
        >
          {CODING_AGENT_GUIDES[codingAgent].label}
        </Link>
      ))}
    </nav>
  );
}
