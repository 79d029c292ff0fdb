"use client";

import { clsx } from "clsx";
import type { ReactNode } from "react";
import { SubmitButton } from "./button";
import { FormMessage } from "./form-message";
import type { useActionForm } from "./use-action-form";

/**
 * A form that adds one thing after another (a member, a token, a secret): its fields in one row on
 * a wide screen, the submit button last in it, the action's outcome under the row, then what a
 * saved action gives back (`outcome`: a secret shown once). `columns` is the row's Tailwind grid
 * (`sm:grid-cols-[1fr_10rem_auto]`), written out where the form is, for Tailwind to find.
 */
export function RowForm({
  form,
  columns,
  submit,
  testId,
  label,
  autoComplete,
  outcome,
  children,
}: {
  form: ReturnType<typeof useActionForm>;
  columns: string;
  submit: { label: string; pendingLabel?: string; testId?: string };
  testId: string;
  /** The form's accessible name, where the page shows several alike. */
  label?: string;
  autoComplete?: string;
  outcome?: ReactNode;
  children: ReactNode;
}) {
  return (
    <form {...form.formProps} className="space-y-3" data-testid={testId} aria-label={label} autoComplete={autoComplete}>
      <div className={clsx("grid gap-3 sm:items-end", columns)}>
        {children}
        <SubmitButton pending={form.pending} {...submit} />
      </div>
      <FormMessage state={form.state} />
      {outcome}
    </form>
  );
}
