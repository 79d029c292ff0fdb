"use client";

import { addMemberAction } from "@/lib/features/settings/settings-actions";
import { Field, TextInput } from "@/components/ui/field";
import { RowForm } from "@/components/ui/row-form";
import { useActionForm } from "@/components/ui/use-action-form";
import { RoleField } from "@/lib/platform/auth/components/role-options";

/** Adds a person to the current project: an existing account by email, or a new one with a password. */
export function AddMemberForm({ project }: { project: string }) {
  const form = useActionForm(addMemberAction, { resetOnSave: true });
  return (
    <RowForm
      form={form}
      testId="create-user-form"
      label={`Add a member to ${project}`}
      columns="sm:grid-cols-[1fr_1fr_9rem_auto]"
      submit={{ label: "Add member", pendingLabel: "Adding…", testId: "add-user" }}
    >
      <Field label="Email" htmlFor="member-email" error={form.errorAt("email")}>
        <TextInput id="member-email" name="email" type="email" autoComplete="off" />
      </Field>
      <Field label="Initial password" htmlFor="member-password" error={form.errorAt("password")} hint="Only for someone without an account yet">
        <TextInput id="member-password" name="password" type="password" autoComplete="new-password" />
      </Field>
      <RoleField id="member-role" defaultRole="viewer" error={form.errorAt("role")} />
    </RowForm>
  );
}
