"use client";

import { startTransition, useActionState, useEffect, useRef, type FormEvent } from "react";
import type { ActionState } from "@/lib/platform/api/action-state";

/**
 * A form bound to a server action that clears itself once saved and keeps what was typed when
 * refused. Submitted by hand rather than through <form action>: React resets a form after its
 * action, and a refused entry should stay in the fields to be corrected. `onSaved` resets any
 * state of the form that lives outside its fields.
 */
export function useClearOnSaveForm(serverAction: (prev: ActionState, form: FormData) => Promise<ActionState>, onSaved?: () => void) {
  const [state, action, pending] = useActionState(serverAction, {});
  const ref = useRef<HTMLFormElement>(null);
  const saved = useRef(onSaved);
  saved.current = onSaved;
  useEffect(() => {
    if (!state.ok) return;
    ref.current?.reset();
    saved.current?.();
  }, [state]);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    startTransition(() => action(data));
  };
  return { state, pending, formProps: { ref, onSubmit } };
}
