"use client";

import { useActionState } from "react";
import { createTokenAction } from "@/lib/features/settings/settings-actions";
import { Button } from "@/components/ui/button";
import { Field, TextInput, inputClass } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { RoleOptions } from "@/lib/platform/auth/components/role-options";

export function CreateTokenForm() {
  const [state, action, pending] = useActionState(createTokenAction, {});
  return (
    <form action={action} className="space-y-3" data-testid="create-token-form">
      <div className="grid gap-3 sm:grid-cols-[1fr_10rem_auto] sm:items-end">
        <Field label="Token name" htmlFor="token-name" error={state.fieldErrors?.name}>
          <TextInput id="token-name" name="name" placeholder="ci-pipeline" />
        </Field>
        <Field label="Role" htmlFor="token-role">
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
        <code className="block break-all rounded-md bg-zinc-100 p-3 font-mono text-xs dark:bg-zinc-800" data-testid="new-token">
          {state.secret}
        </code>
      )}
    </form>
  );
}
