"use client";

import { useActionState } from "react";
import type { ActionState } from "@/lib/platform/api/action-state";
import { useActionToast } from "@/components/ui/use-action-toast";
import { HiddenFields, Refusal } from "@/components/ui/inline-form";

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
      <HiddenFields fields={fields} />
      <button
        type="submit"
        disabled={pending}
        data-testid={testId}
        className={`rounded text-xs hover:underline focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 disabled:opacity-50 ${danger ? "text-red-600" : "text-indigo-600"}`}
      >
        {pending ? pendingLabel : label}
      </button>
      <Refusal state={state} testId={`${testId}-error`} />
    </form>
  );
}
