"use client";

import { startTransition, useActionState, useEffect, useRef, type FormEvent } from "react";
import type { ActionState } from "@/lib/platform/api/action-state";
import { errorAt, focusFirstInvalid } from "@/components/ui/invalid-field";

/**
 * Every dashboard form bound to a server action: `<form {...formProps}>`.
 *
 * - Keeps what was typed when the action refuses it. Submitted by hand rather than through
 *   <form action>: React resets a form's uncontrolled fields after its action, whatever the result.
 * - On a refusal, scrolls to and focuses the first invalid field (or the message).
 * - `resetOnSave`: clears the fields once saved (a form that adds one thing after another);
 *   `onSaved` resets any state of the form that lives outside its fields.
 * - `errorAt(path)`: the problem at a field or under it (`targets[0].to`).
 */
export function useActionForm(
  serverAction: (prev: ActionState, form: FormData) => Promise<ActionState>,
  options: { resetOnSave?: boolean; onSaved?: () => void } = {},
) {
  const [state, action, pending] = useActionState(serverAction, {});
  const ref = useRef<HTMLFormElement>(null);
  const latest = useRef(options);
  latest.current = options;
  useEffect(() => {
    if (state.ok) {
      if (latest.current.resetOnSave) ref.current?.reset();
      latest.current.onSaved?.();
      return;
    }
    if (state.message || state.fieldErrors) focusFirstInvalid(ref.current, Object.keys(state.fieldErrors ?? {}));
  }, [state]);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    // The button pressed is part of what is sent (approve or deny, "Approve and always allow").
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const data = new FormData(event.currentTarget, submitter);
    startTransition(() => action(data));
  };
  return {
    state,
    pending,
    formProps: { ref, onSubmit, noValidate: true },
    errorAt: (path: string) => errorAt(state.fieldErrors, path),
  };
}
