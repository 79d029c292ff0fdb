"use client";

import { setSecretAction } from "@/lib/features/secrets/secret-actions";
import { Button } from "@/components/ui/button";
import { Field, TextInput } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";

/**
 * Write-only: the value field is a password input, cleared after every save, never prefilled. The
 * hosts say where hooks may send the value; left empty, a stored secret keeps its hosts.
 */
export function SetSecretForm() {
  const { state, pending, formProps, errorAt } = useActionForm(setSecretAction, { resetOnSave: true });
  return (
    <form {...formProps} className="space-y-3" data-testid="set-secret-form" autoComplete="off">
      <div className="grid gap-3 sm:grid-cols-[14rem_1fr_1fr_auto] sm:items-end">
        <Field label="Name" htmlFor="secret-name" error={errorAt("name")} hint="Used in hooks as ${secret:NAME}">
          <TextInput id="secret-name" name="name" placeholder="SLACK_TOKEN" className="font-mono" spellCheck={false} />
        </Field>
        <Field label="Value" htmlFor="secret-value" error={errorAt("value")} hint="Replaces the stored value; it cannot be read back">
          <TextInput id="secret-value" name="value" type="password" autoComplete="new-password" />
        </Field>
        <Field
          label="Hosts"
          htmlFor="secret-hosts"
          error={errorAt("hosts")}
          hint="Where hooks may send it: api.example.com, *.slack.com. Empty keeps a stored secret's hosts; a new one goes nowhere"
        >
          <TextInput id="secret-hosts" name="hosts" placeholder="slack.com, *.example.com" className="font-mono" spellCheck={false} />
        </Field>
        <Button type="submit" disabled={pending} data-testid="save-secret">
          {pending ? "Saving…" : "Save secret"}
        </Button>
      </div>
      <FormMessage state={state} />
    </form>
  );
}
