"use client";

import { useActionState } from "react";
import { createUserAction } from "@/lib/features/settings/settings-actions";
import { Button } from "@/components/ui/button";
import { Field, TextInput, inputClass } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";

export function CreateUserForm() {
  const [state, action, pending] = useActionState(createUserAction, {});
  return (
    <form action={action} className="space-y-3" data-testid="create-user-form" noValidate>
      <div className="grid gap-3 sm:grid-cols-[1fr_1fr_9rem_auto] sm:items-end">
        <Field label="Email" htmlFor="user-email" error={state.fieldErrors?.email}>
          <TextInput id="user-email" name="email" type="email" />
        </Field>
        <Field label="Initial password" htmlFor="user-password" error={state.fieldErrors?.password}>
          <TextInput id="user-password" name="password" type="password" autoComplete="new-password" />
        </Field>
        <Field label="Role" htmlFor="user-role">
          <select id="user-role" name="role" defaultValue="viewer" className={inputClass}>
            <option value="viewer">viewer</option>
            <option value="operator">operator</option>
            <option value="admin">admin</option>
          </select>
        </Field>
        <Button type="submit" disabled={pending} data-testid="add-user">
          Add user
        </Button>
      </div>
      <FormMessage state={state} />
    </form>
  );
}
