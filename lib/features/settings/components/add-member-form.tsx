"use client";

import { addMemberAction } from "@/lib/features/settings/settings-actions";
import { Button } from "@/components/ui/button";
import { Field, TextInput, inputClass } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";
import { RoleOptions } from "@/lib/platform/auth/components/role-options";

/** Adds a person to the current project: an existing account by email, or a new one with a password. */
export function AddMemberForm({ project }: { project: string }) {
  const { state, pending, formProps, errorAt } = useActionForm(addMemberAction, { resetOnSave: true });
  return (
    <form {...formProps} className="space-y-3" data-testid="create-user-form" noValidate aria-label={`Add a member to ${project}`}>
      <div className="grid gap-3 sm:grid-cols-[1fr_1fr_9rem_auto] sm:items-end">
        <Field label="Email" htmlFor="member-email" error={errorAt("email")}>
          <TextInput id="member-email" name="email" type="email" autoComplete="off" />
        </Field>
        <Field label="Initial password" htmlFor="member-password" error={errorAt("password")} hint="Only for someone without an account yet">
          <TextInput id="member-password" name="password" type="password" autoComplete="new-password" />
        </Field>
        <Field label="Role" htmlFor="member-role" error={errorAt("role")}>
          <select id="member-role" name="role" defaultValue="viewer" className={inputClass}>
            <RoleOptions />
          </select>
        </Field>
        <Button type="submit" disabled={pending} data-testid="add-user">
          {pending ? "Adding…" : "Add member"}
        </Button>
      </div>
      <FormMessage state={state} />
    </form>
  );
}
