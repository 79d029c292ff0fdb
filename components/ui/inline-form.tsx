"use client";

import type { ReactNode } from "react";
import type { ActionState } from "@/lib/platform/api/action-state";
import { useActionToast } from "./use-action-toast";
import type { useActionForm } from "./use-action-form";

/** A refusal of a small in-place form, shown beside the control it refused (and read out). */
export function Refusal({ state, testId }: { state: ActionState; testId?: string }) {
  if (!state.message || state.ok) return null;
  return (
    <span role="alert" className="text-xs text-red-600 dark:text-red-400" data-testid={testId}>
      {state.message}
    </span>
  );
}

/** The values a form sends along without showing them (the id of what it changes). */
export function HiddenFields({ fields }: { fields: Record<string, string> }) {
  return Object.entries(fields).map(([name, value]) => <input key={name} type="hidden" name={name} value={value} />);
}

/** A value edited in place in a table (a name, a Slack id): `fields` go along hidden; the result is toasted, a refusal also shown beside it. */
export function InlineForm({ form, fields, children }: { form: ReturnType<typeof useActionForm>; fields: Record<string, string>; children: ReactNode }) {
  useActionToast(form.state);
  return (
    <form {...form.formProps} className="flex items-center gap-2">
      <HiddenFields fields={fields} />
      {children}
      <Refusal state={form.state} />
    </form>
  );
}
