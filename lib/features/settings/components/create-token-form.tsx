"use client";

import { createTokenAction } from "@/lib/features/settings/settings-actions";
import { Field, TextInput } from "@/components/ui/field";
import { RowForm } from "@/components/ui/row-form";
import { useActionForm } from "@/components/ui/use-action-form";
import { RoleField } from "@/lib/platform/auth/components/role-options";
import { ShownOnce } from "./shown-once";

export function CreateTokenForm() {
  const form = useActionForm(createTokenAction, { resetOnSave: true });
  const { secret } = form.state;
  return (
    <RowForm
      form={form}
      testId="create-token-form"
      columns="sm:grid-cols-[1fr_10rem_auto]"
      submit={{ label: "Create token" }}
      outcome={secret && <ShownOnce secret={secret} label="Copy the new token" testId="new-token" />}
    >
      <Field label="Token name" htmlFor="token-name" error={form.errorAt("name")}>
        <TextInput id="token-name" name="name" placeholder="ci-pipeline" />
      </Field>
      <RoleField id="token-role" defaultRole="operator" error={form.errorAt("role")} />
    </RowForm>
  );
}
