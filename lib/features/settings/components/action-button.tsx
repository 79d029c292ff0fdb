"use client";

import { useActionState } from "react";
import type { ActionState } from "@/lib/platform/api/action-state";
import { useActionToast } from "@/components/ui/use-action-toast";

/**
 * One small button posting hidden fields to a server action, asking first when `confirmMessage`
 * is given; a refusal is shown beside it (and toasted), so it is read where it was clicked.
 */
export function ActionButton({
  action: serverAction,
  fields,
  label,
  pendingLabel,
  confirmMessage,
  testId,
  danger,
}: {
  action: (prev: ActionState, form: FormData) => Promise<ActionState>;
  fields: Record<string, string>;
  label: string;
  pendingLabel: string;
  confirmMessage?: string;
  testId: string;
  danger?: boolean;
}) {
  const [state, action, pending] = useActionState(serverAction, {});
  useActionToast(state);
  return (
    <form
      action={action}
      className="inline-flex items-center gap-2"
      onSubmit={(e) => {
        if (confirmMessage && !confirm(confirmMessage)) e.preventDefault();
      }}
    >
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button
        type="submit"
        disabled={pending}
        data-testid={testId}
        className={`rounded text-xs hover:underline focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 disabled:opacity-50 ${danger ? "text-red-600" : "text-indigo-600"}`}
      >
        {pending ? pendingLabel : label}
      </button>
      {state.message && !state.ok && (
        <span role="alert" className="text-xs text-red-600 dark:text-red-400" data-testid={`${testId}-error`}>
          {state.message}
        </span>
      )}
    </form>
  );
}
