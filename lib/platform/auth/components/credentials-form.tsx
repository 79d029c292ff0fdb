"use client";

import { useActionState } from "react";
import { Button } from "@/components/ui/button";
import { Field, TextInput } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import type { ActionState } from "@/lib/platform/api/action-state";

export function CredentialsForm({
  action,
  submitLabel,
  next,
  testId,
}: {
  action: (prev: ActionState, form: FormData) => Promise<ActionState>;
  submitLabel: string;
  next?: string;
  testId: string;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-4" data-testid={testId} noValidate>
      {next && <input type="hidden" name="next" value={next} />}
      <Field label="Email" htmlFor="email" error={state.fieldErrors?.email}>
        <TextInput id="email" name="email" type="email" autoComplete="email" required autoFocus />
      </Field>
      <Field label="Password" htmlFor="password" hint="At least 8 characters." error={state.fieldErrors?.password}>
        <TextInput id="password" name="password" type="password" autoComplete="current-password" required />
      </Field>
      <FormMessage state={state} />
      <Button type="submit" disabled={pending} className="w-full" data-testid="submit">
        {pending ? "Working…" : submitLabel}
      </Button>
    </form>
  );
}
