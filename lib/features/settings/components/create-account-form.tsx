"use client";

import { createAccountAction } from "@/lib/features/settings/settings-actions";
import { Field, TextInput } from "@/components/ui/field";
import { RowForm } from "@/components/ui/row-form";
import { useActionForm } from "@/components/ui/use-action-form";

/** An account of the instance (instance admins); project admins then add it to their projects. */
export function CreateAccountForm() {
  const form = useActionForm(createAccountAction, { resetOnSave: true });
  return (
    <RowForm
      form={form}
      testId="create-account-form"
      columns="sm:grid-cols-[1fr_1fr_auto_auto]"
      submit={{ label: "Add account", pendingLabel: "Adding…", testId: "add-account" }}
    >
      <Field label="Email" htmlFor="account-email" error={form.errorAt("email")}>
        <TextInput id="account-email" name="email" type="email" autoComplete="off" />
      </Field>
      <Field label="Initial password" htmlFor="account-password" error={form.errorAt("password")}>
        <TextInput id="account-password" name="password" type="password" autoComplete="new-password" />
      </Field>
      <label className="flex items-center gap-2 pb-2 text-sm">
        <input type="checkbox" name="instanceAdmin" data-testid="account-instance-admin" /> Instance admin
      </label>
    </RowForm>
  );
}
