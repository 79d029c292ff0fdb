"use client";

import { createTokenAction } from "@/lib/features/settings/settings-actions";
import { Button } from "@/components/ui/button";
import { Field, TextInput, inputClass } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";
import { CopyableText } from "@/components/ui/copyable-text";
import { RoleOptions } from "@/lib/platform/auth/components/role-options";

export function CreateTokenForm() {
  const { state, pending, formProps, errorAt } = useActionForm(createTokenAction, { resetOnSave: true });
  return (
    <form {...formProps} className="space-y-3" data-testid="create-token-form">
      <div className="grid gap-3 sm:grid-cols-[1fr_10rem_auto] sm:items-end">
        <Field label="Token name" htmlFor="token-name" error={errorAt("name")}>
          <TextInput id="token-name" name="name" placeholder="ci-pipeline" />
        </Field>
        <Field label="Role" htmlFor="token-role" error={errorAt("role")}>
          <select id="token-role" name="role" defaultValue="operator" className={inputClass}>
            <RoleOptions />
          </select>
        </Field>
        <Button type="submit" disabled={pending}>
          Create token
        </Button>
      </div>
      <FormMessage state={state} />
      {state.secret && (
        <div className="space-y-1">
          <p className="text-xs text-zinc-500">Shown once: copy it now.</p>
          <CopyableText text={state.secret} label="Copy the new token" testId="new-token" />
        </div>
      )}
    </form>
  );
}
