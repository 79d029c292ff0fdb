import type { ActionState } from "@/lib/platform/api/action-state";

/**
 * The readable outcome of a server action, announced to screen readers. A refusal with problems at
 * several fields lists each (path and problem) under the message: every problem is said here even
 * where a form draws no field for its path, and each is also shown at its field.
 */
export function FormMessage({ state }: { state: ActionState }) {
  if (!state.message) return null;
  const problems = Object.entries(state.fieldErrors ?? {});
  return (
    <div
      role={state.ok ? "status" : "alert"}
      tabIndex={-1}
      data-testid="form-message"
      className={
        state.ok
          ? "rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200"
          : "rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
      }
    >
      <p className="break-words">{state.message}</p>
      {!state.ok && problems.length > 1 && (
        <ul className="mt-1 list-disc space-y-0.5 pl-5" data-testid="form-problems">
          {problems.map(([path, message]) => (
            <li key={path} className="break-words">
              <span className="font-mono">{path}</span>: {message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
