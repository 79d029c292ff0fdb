"use client";

import { createBridgeCredentialAction, revokeBridgeCredentialAction } from "@/lib/features/settings/settings-actions";
import { Field, TextInput } from "@/components/ui/field";
import { CommandBlock } from "@/components/ui/command-block";
import { RowForm } from "@/components/ui/row-form";
import { useActionForm } from "@/components/ui/use-action-form";
import { ShownOnce } from "./shown-once";

/** Makes a bridge credential of the signed-in person; its secret is shown once, with how to use it. */
export function CreateBridgeCredentialForm({ baseUrl }: { baseUrl: string }) {
  const form = useActionForm(createBridgeCredentialAction, { resetOnSave: true });
  const { secret } = form.state;
  return (
    <RowForm
      form={form}
      testId="create-bridge-credential-form"
      columns="sm:grid-cols-[1fr_auto]"
      submit={{ label: "Create bridge credential", pendingLabel: "Creating…" }}
      outcome={
        secret && (
          <ShownOnce secret={secret} label="Copy the new bridge credential" testId="new-bridge-credential">
            <p className="text-xs text-zinc-500">On that machine, in the shell your coding agent starts from:</p>
            <CommandBlock text={`export HOOKPLANE_URL=${baseUrl}\nexport HOOKPLANE_TOKEN=${secret}`} label="Copy the environment lines" />
          </ShownOnce>
        )
      }
    >
      <Field label="For which machine" htmlFor="bridge-credential-name" error={form.errorAt("name")}>
        <TextInput id="bridge-credential-name" name="name" placeholder="work laptop" />
      </Field>
    </RowForm>
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
