"use client";

import { useState } from "react";
import { createServiceAccountAction, issueServiceCredentialAction } from "@/lib/features/settings/settings-actions";
import { Button } from "@/components/ui/button";
import { Field, TextInput, inputClass } from "@/components/ui/field";
import { CopyableText } from "@/components/ui/copyable-text";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";

export function CreateServiceAccountForm() {
  const { state, pending, formProps, errorAt } = useActionForm(createServiceAccountAction, { resetOnSave: true });
  return (
    <form {...formProps} className="space-y-3" data-testid="create-service-account-form">
      <div className="grid gap-3 sm:grid-cols-[12rem_1fr_auto] sm:items-end">
        <Field label="Name" htmlFor="service-account-name" error={errorAt("name")}>
          <TextInput id="service-account-name" name="name" placeholder="ci-deploy" />
        </Field>
        <Field label="What it is" htmlFor="service-account-description" error={errorAt("description")}>
          <TextInput id="service-account-description" name="description" placeholder="GitHub Actions, deploy workflow" />
        </Field>
        <Button type="submit" disabled={pending}>
          {pending ? "Creating…" : "Create service account"}
        </Button>
      </div>
      <FormMessage state={state} />
    </form>
  );
}

/**
 * A credential of a service account: a bridge credential for a coding agent in CI (its hook
 * events only) or an API token with a role for a script. The secret is shown once.
 */
export function IssueServiceCredentialForm({ accounts, baseUrl }: { accounts: { id: string; name: string }[]; baseUrl: string }) {
  const [kind, setKind] = useState<"bridge" | "api">("bridge");
  const { state, pending, formProps, errorAt } = useActionForm(issueServiceCredentialAction, { resetOnSave: true, onSaved: () => setKind("bridge") });
  return (
    <form {...formProps} className="space-y-3" data-testid="issue-service-credential-form">
      <div className="grid gap-3 sm:grid-cols-[10rem_10rem_1fr_8rem_auto] sm:items-end">
        <Field label="Service account" htmlFor="service-credential-account" error={errorAt("accountId")}>
          <select id="service-credential-account" name="accountId" className={inputClass}>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Kind" htmlFor="service-credential-kind" error={errorAt("kind")}>
          <select id="service-credential-kind" name="kind" value={kind} onChange={(e) => setKind(e.target.value as "bridge" | "api")} className={inputClass}>
            <option value="bridge">bridge credential (hook events)</option>
            <option value="api">API token</option>
          </select>
        </Field>
        <Field label="Used where" htmlFor="service-credential-name" error={errorAt("name")}>
          <TextInput id="service-credential-name" name="name" placeholder="github-actions" />
        </Field>
        <Field label="Role" htmlFor="service-credential-role" error={errorAt("role")}>
          <select id="service-credential-role" name="role" defaultValue="viewer" disabled={kind === "bridge"} className={inputClass}>
            <option value="viewer">viewer</option>
            <option value="operator">operator</option>
          </select>
        </Field>
        <Button type="submit" disabled={pending}>
          {pending ? "Creating…" : "Create credential"}
        </Button>
      </div>
      <FormMessage state={state} />
      {state.secret && (
        <div className="space-y-2">
          <p className="text-xs text-zinc-500">Shown once: copy it now.</p>
          <CopyableText text={state.secret} label="Copy the new credential" testId="new-service-credential" />
          <p className="text-xs text-zinc-500">Store it as a secret of the pipeline or job, then set:</p>
          <code className="block whitespace-pre-wrap break-all rounded-md bg-zinc-100 p-3 font-mono text-xs dark:bg-zinc-800">
            {`HOOKPLANE_URL=${baseUrl}\nHOOKPLANE_TOKEN=<the secret above>`}
          </code>
        </div>
      )}
    </form>
  );
}
