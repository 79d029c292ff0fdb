"use client";

import { useActionState } from "react";
import type { ActionState } from "@/lib/platform/api/action-state";
import { useActionToast } from "./use-action-toast";

/** A small "Delete" that asks first, then posts `name=value` to its server action and toasts the result. */
export function ConfirmDeleteButton({
  action: serverAction,
  name,
  value,
  confirmMessage,
  testId,
}: {
  action: (prev: ActionState, form: FormData) => Promise<ActionState>;
  name: string;
  value: string;
  confirmMessage: string;
  testId: string;
}) {
  const [state, action, pending] = useActionState(serverAction, {});
  useActionToast(state);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!confirm(confirmMessage)) e.preventDefault();
      }}
    >
      <input type="hidden" name={name} value={value} />
      <button type="submit" disabled={pending} className="text-xs text-red-600 hover:underline disabled:opacity-50" data-testid={testId}>
        {pending ? "Deleting…" : "Delete"}
      </button>
    </form>
  );
}
