"use client";

import { createAccountAction } from "@/lib/features/settings/settings-actions";
import { Button } from "@/components/ui/button";
import { Field, TextInput } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";

/** An account of the instance (instance admins); project admins then add it to their projects. */
export function CreateAccountForm() {
  const { state, pending, formProps, errorAt } = useActionForm(createAccountAction, { resetOnSave: true });
  return (
    <form {...formProps} className="space-y-3" data-testid="create-account-form" noValidate>
      <div className="grid gap-3 sm:grid-cols-[1fr_1fr_auto_auto] sm:items-end">
        <Field label="Email" htmlFor="account-email" error={errorAt("email")}>
          <TextInput id="account-email" name="email" type="email" autoComplete="off" />
        </Field>
        <Field label="Initial password" htmlFor="account-password" error={errorAt("password")}>
          <TextInput id="account-password" name="password" type="password" autoComplete="new-password" />
        </Field>
        <label className="flex items-center gap-2 pb-2 text-sm">
          <input type="checkbox" name="instanceAdmin" data-testid="account-instance-admin" /> Instance admin
        </label>
        <Button type="submit" disabled={pending} data-testid="add-account">
          {pending ? "Adding…" : "Add account"}
        </Button>
      </div>
      <FormMessage state={state} />
    </form>
  );
}
