"use client";

import { createBridgeCredentialAction, revokeBridgeCredentialAction } from "@/lib/features/settings/settings-actions";
import { Button } from "@/components/ui/button";
import { Field, TextInput } from "@/components/ui/field";
import { CommandBlock } from "@/components/ui/command-block";
import { CopyableText } from "@/components/ui/copyable-text";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";

/** Makes a bridge credential of the signed-in person; its secret is shown once, with how to use it. */
export function CreateBridgeCredentialForm({ baseUrl }: { baseUrl: string }) {
  const { state, pending, formProps, errorAt } = useActionForm(createBridgeCredentialAction, { resetOnSave: true });
  return (
    <form {...formProps} className="space-y-3" data-testid="create-bridge-credential-form">
      <div className="grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
        <Field label="For which machine" htmlFor="bridge-credential-name" error={errorAt("name")}>
          <TextInput id="bridge-credential-name" name="name" placeholder="work laptop" />
        </Field>
        <Button type="submit" disabled={pending}>
          {pending ? "Creating…" : "Create bridge credential"}
        </Button>
      </div>
      <FormMessage state={state} />
      {state.secret && (
        <div className="space-y-2">
          <p className="text-xs text-zinc-500">Shown once: copy it now.</p>
          <CopyableText text={state.secret} label="Copy the new bridge credential" testId="new-bridge-credential" />
          <p className="text-xs text-zinc-500">On that machine, in the shell your coding agent starts from:</p>
          <CommandBlock text={`export HOOKPLANE_URL=${baseUrl}\nexport HOOKPLANE_TOKEN=${state.secret}`} label="Copy the environment lines" />
        </div>
      )}
    </form>
  );
}

export function RevokeBridgeCredentialButton({ id, name }: { id: string; name: string }) {
  const { state, pending, formProps } = useActionForm(revokeBridgeCredentialAction);
  return (
    <form {...formProps}>
      <input type="hidden" name="id" value={id} />
      <button type="submit" disabled={pending} className="text-xs text-red-600 hover:underline disabled:opacity-50" aria-label={`Revoke ${name}`}>
        {pending ? "Revoking…" : "Revoke"}
      </button>
      {state.message && !state.ok && <span className="ml-2 text-xs text-red-600">{state.message}</span>}
    </form>
  );
}
