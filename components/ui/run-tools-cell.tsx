/** A run's tools as a list's cell: the tools it used, and whether a hook blocked a call. */
export function RunToolsCell({ run }: { run: { toolsUsed: string[]; blocked: boolean } }) {
  return (
    <td className="px-3 py-2 font-mono text-xs">
      {run.toolsUsed.join(", ")}
      {run.blocked && <span className="ml-1 text-red-600 dark:text-red-400">blocked</span>}
    </td>
  );
}
