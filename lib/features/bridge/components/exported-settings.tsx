"use client";

import { useQuery } from "@tanstack/react-query";
import { CommandBlock } from "@/components/ui/command-block";
import { ApiClientError } from "@/lib/platform/api/api-fetch";
import { CODING_AGENT_GUIDES, exportPath, hookNotes, type CodingAgent, type ExportWarning } from "@/lib/features/bridge/connect-instructions";

interface ExportedFile {
  content: string;
  notes: ExportWarning[];
}

/** The export endpoint's file as text (apiFetch reads JSON), its warnings from their header. */
async function fetchExport(path: string): Promise<ExportedFile> {
  const response = await fetch(path, { credentials: "same-origin" });
  if (!response.ok) {
    const body = await response.json().catch(() => undefined);
    throw new ApiClientError(response.status, body?.error?.message ?? `Request failed (${response.status})`);
  }
  let warnings: ExportWarning[] = [];
  try {
    warnings = JSON.parse(response.headers.get("x-hookplane-warnings") ?? "[]");
  } catch {
    // A header cut short by a proxy only loses the notes, not the file.
  }
  return { content: await response.text(), notes: hookNotes(warnings) };
}

/**
 * The agent's real export for one coding agent, to paste: fetched each time the page is shown
 * (hooks change), with what the coding agent cannot express of them.
 */
export function ExportedSettings({ codingAgent, agentName, hookCount }: { codingAgent: CodingAgent; agentName: string; hookCount: number }) {
  const label = CODING_AGENT_GUIDES[codingAgent].label;
  const query = useQuery({ queryKey: ["connect-export", codingAgent, agentName], queryFn: () => fetchExport(exportPath(codingAgent, agentName)), staleTime: 0 });

  if (query.isPending) {
    return <div className="h-40 animate-pulse rounded-md bg-zinc-200 dark:bg-zinc-800" aria-busy="true" data-testid="connect-settings-loading" />;
  }
  if (query.isError) {
    return (
      <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200" data-testid="connect-settings-error">
        Could not export {agentName}&apos;s {label} settings: {query.error.message}{" "}
        <button type="button" className="underline" onClick={() => query.refetch()}>
          Retry
        </button>
      </div>
    );
  }
  return (
    <div className="space-y-2">
      <CommandBlock text={query.data.content} label={`Copy the ${label} settings`} testId="connect-settings" />
      <p className="text-xs text-zinc-500" data-testid="connect-settings-scope">
        {hookCount === 0
          ? `${agentName} has no hooks yet: these settings record its sessions (their start, each turn and their end). Add hooks on the agent's page to steer it, then copy the settings again.`
          : `These settings send the events ${agentName}'s hooks need today, plus each session's start, turns and end. After adding a hook on another event, copy them again.`}
      </p>
      {query.data.notes.length > 0 && (
        <details className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-xs text-amber-900 dark:border-amber-900 dark:bg-amber-950 dark:text-amber-200" data-testid="connect-settings-notes">
          <summary className="cursor-pointer font-medium">
            What {label} cannot carry of these hooks ({query.data.notes.length})
          </summary>
          <ul className="mt-2 list-disc space-y-1 pl-4">
            {query.data.notes.map((note, i) => (
              <li key={i}>
                <code className="font-mono">{note.path}</code>: {note.message}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
