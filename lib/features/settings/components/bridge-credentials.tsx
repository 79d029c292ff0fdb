"use client";

import { useActionState } from "react";
import { createBridgeCredentialAction, revokeBridgeCredentialAction } from "@/lib/features/settings/settings-actions";
import { Button } from "@/components/ui/button";
import { Field, TextInput } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";

/** Makes a bridge credential of the signed-in person; its secret is shown once, with how to use it. */
export function CreateBridgeCredentialForm({ baseUrl }: { baseUrl: string }) {
  const [state, action, pending] = useActionState(createBridgeCredentialAction, {});
  return (
    <form action={action} className="space-y-3" data-testid="create-bridge-credential-form">
      <div className="grid gap-3 sm:grid-cols-[1fr_auto] sm:items-end">
        <Field label="For which machine" htmlFor="bridge-credential-name" error={state.fieldErrors?.name}>
          <TextInput id="bridge-credential-name" name="name" placeholder="work laptop" />
        </Field>
        <Button type="submit" disabled={pending}>
          {pending ? "Creating…" : "Create bridge credential"}
        </Button>
      </div>
      <FormMessage state={state} />
      {state.secret && (
        <div className="space-y-2">
          <code className="block break-all rounded-md bg-zinc-100 p-3 font-mono text-xs dark:bg-zinc-800" data-testid="new-bridge-credential">
            {state.secret}
          </code>
          <p className="text-xs text-zinc-500">On that machine, in the shell your coding agent starts from:</p>
          <code className="block overflow-x-auto whitespace-pre rounded-md bg-zinc-100 p-3 font-mono text-xs dark:bg-zinc-800">
            {`export HOOKPLANE_URL=${baseUrl}\nexport HOOKPLANE_TOKEN=${state.secret}`}
          </code>
        </div>
      )}
    </form>
  );
}

export function RevokeBridgeCredentialButton({ id, name }: { id: string; name: string }) {
  const [state, action, pending] = useActionState(revokeBridgeCredentialAction, {});
  return (
    <form action={action}>
      <input type="hidden" name="id" value={id} />
      <button type="submit" disabled={pending} className="text-xs text-red-600 hover:underline disabled:opacity-50" aria-label={`Revoke ${name}`}>
        {pending ? "Revoking…" : "Revoke"}
      </button>
      {state.message && !state.ok && <span className="ml-2 text-xs text-red-600">{state.message}</span>}
    </form>
  );
}
