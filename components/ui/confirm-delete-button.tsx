"use client";

import { useActionState } from "react";
import type { ActionState } from "@/lib/platform/api/action-state";
import { Button } from "./button";
import { FormMessage } from "./form-message";
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

/**
 * A page's own delete (a run, an agent), beside its title: a danger button that asks first, then
 * posts `id` to its server action; a refusal is shown under it.
 */
export function DangerDeleteButton({
  action: serverAction,
  id,
  confirmMessage,
  label = "Delete",
  testId,
}: {
  action: (prev: ActionState, form: FormData) => Promise<ActionState>;
  id: string;
  confirmMessage: string;
  label?: string;
  testId: string;
}) {
  const [state, action, pending] = useActionState(serverAction, {});
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!confirm(confirmMessage)) e.preventDefault();
      }}
    >
      <input type="hidden" name="id" value={id} />
      <Button type="submit" variant="danger" disabled={pending} data-testid={testId}>
        {pending ? "Deleting…" : label}
      </Button>
      <FormMessage state={state} />
    </form>
  );
}
