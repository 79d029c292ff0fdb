"use client";

import { Button } from "@/components/ui/button";
import { Field, TextInput } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";
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
  const { state, pending, formProps, errorAt } = useActionForm(action);
  return (
    <form {...formProps} className="space-y-4" data-testid={testId}>
      {next && <input type="hidden" name="next" value={next} />}
      <Field label="Email" htmlFor="email" error={errorAt("email")}>
        <TextInput id="email" name="email" type="email" autoComplete="email" required autoFocus />
      </Field>
      <Field label="Password" htmlFor="password" hint="At least 8 characters." error={errorAt("password")}>
        <TextInput id="password" name="password" type="password" autoComplete="current-password" required />
      </Field>
      <FormMessage state={state} />
      <Button type="submit" disabled={pending} className="w-full" data-testid="submit">
        {pending ? "Working…" : submitLabel}
      </Button>
    </form>
  );
}
