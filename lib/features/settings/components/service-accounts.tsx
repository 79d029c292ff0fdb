"use client";

import { useState } from "react";
import { createServiceAccountAction, issueServiceCredentialAction } from "@/lib/features/settings/settings-actions";
import { Field, Options, TextInput, inputClass } from "@/components/ui/field";
import { RowForm } from "@/components/ui/row-form";
import { useActionForm } from "@/components/ui/use-action-form";
import { ShownOnce } from "./shown-once";

export function CreateServiceAccountForm() {
  const form = useActionForm(createServiceAccountAction, { resetOnSave: true });
  return (
    <RowForm form={form} testId="create-service-account-form" columns="sm:grid-cols-[12rem_1fr_auto]" submit={{ label: "Create service account", pendingLabel: "Creating…" }}>
      <Field label="Name" htmlFor="service-account-name" error={form.errorAt("name")}>
        <TextInput id="service-account-name" name="name" placeholder="ci-deploy" />
      </Field>
      <Field label="What it is" htmlFor="service-account-description" error={form.errorAt("description")}>
        <TextInput id="service-account-description" name="description" placeholder="GitHub Actions, deploy workflow" />
      </Field>
    </RowForm>
  );
}

/**
 * A credential of a service account: a bridge credential for a coding agent in CI (its hook
 * events only) or an API token with a role for a script. The secret is shown once.
 */
export function IssueServiceCredentialForm({ accounts, baseUrl }: { accounts: { id: string; name: string }[]; baseUrl: string }) {
  const [kind, setKind] = useState<"bridge" | "api">("bridge");
  const form = useActionForm(issueServiceCredentialAction, { resetOnSave: true, onSaved: () => setKind("bridge") });
  const { secret } = form.state;
  return (
    <RowForm
      form={form}
      testId="issue-service-credential-form"
      columns="sm:grid-cols-[10rem_10rem_1fr_8rem_auto]"
      submit={{ label: "Create credential", pendingLabel: "Creating…" }}
      outcome={
        secret && (
          <ShownOnce secret={secret} label="Copy the new credential" testId="new-service-credential">
            <p className="text-xs text-zinc-500">Store it as a secret of the pipeline or job, then set:</p>
            <code className="block whitespace-pre-wrap break-all rounded-md bg-zinc-100 p-3 font-mono text-xs dark:bg-zinc-800">
              {`HOOKPLANE_URL=${baseUrl}\nHOOKPLANE_TOKEN=<the secret above>`}
            </code>
          </ShownOnce>
        )
      }
    >
      <Field label="Service account" htmlFor="service-credential-account" error={form.errorAt("accountId")}>
        <select id="service-credential-account" name="accountId" className={inputClass}>
          <Options choices={accounts.map((a) => ({ value: a.id, label: a.name }))} />
        </select>
      </Field>
      <Field label="Kind" htmlFor="service-credential-kind" error={form.errorAt("kind")}>
        <select id="service-credential-kind" name="kind" value={kind} onChange={(e) => setKind(e.target.value as "bridge" | "api")} className={inputClass}>
          <option value="bridge">bridge credential (hook events)</option>
          <option value="api">API token</option>
        </select>
      </Field>
      <Field label="Used where" htmlFor="service-credential-name" error={form.errorAt("name")}>
        <TextInput id="service-credential-name" name="name" placeholder="github-actions" />
      </Field>
      <Field label="Role" htmlFor="service-credential-role" error={form.errorAt("role")}>
        <select id="service-credential-role" name="role" defaultValue="viewer" disabled={kind === "bridge"} className={inputClass}>
          <option value="viewer">viewer</option>
          <option value="operator">operator</option>
        </select>
      </Field>
    </RowForm>
  );
}
