"use client";

import { setSecretAction } from "@/lib/features/secrets/secret-actions";
import { Field, TextInput } from "@/components/ui/field";
import { RowForm } from "@/components/ui/row-form";
import { useActionForm } from "@/components/ui/use-action-form";

/**
 * Write-only: the value field is a password input, cleared after every save, never prefilled. The
 * hosts say where hooks may send the value; left empty, a stored secret keeps its hosts.
 */
export function SetSecretForm() {
  const form = useActionForm(setSecretAction, { resetOnSave: true });
  return (
    <RowForm
      form={form}
      testId="set-secret-form"
      autoComplete="off"
      columns="sm:grid-cols-[14rem_1fr_1fr_auto]"
      submit={{ label: "Save secret", pendingLabel: "Saving…", testId: "save-secret" }}
    >
      <Field label="Name" htmlFor="secret-name" error={form.errorAt("name")} hint="Used in hooks as ${secret:NAME}">
        <TextInput id="secret-name" name="name" placeholder="SLACK_TOKEN" className="font-mono" spellCheck={false} />
      </Field>
      <Field label="Value" htmlFor="secret-value" error={form.errorAt("value")} hint="Replaces the stored value; it cannot be read back">
        <TextInput id="secret-value" name="value" type="password" autoComplete="new-password" />
      </Field>
      <Field
        label="Hosts"
        htmlFor="secret-hosts"
        error={form.errorAt("hosts")}
        hint="Where hooks may send it: api.example.com, *.slack.com. Empty keeps a stored secret's hosts; a new one goes nowhere"
      >
        <TextInput id="secret-hosts" name="hosts" placeholder="slack.com, *.example.com" className="font-mono" spellCheck={false} />
      </Field>
    </RowForm>
  );
}
