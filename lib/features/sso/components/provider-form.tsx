"use client";

import { useId } from "react";
import { Button } from "@/components/ui/button";
import { Field, TextArea, TextInput, inputClass } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";
import { formatMappingLines } from "@/lib/features/sso/provider-form";
import type { ProviderView } from "@/lib/features/sso/provider-service";
import { createProviderAction, updateProviderAction } from "@/lib/features/sso/sso-actions";
import { RoleOptions } from "@/lib/platform/auth/components/role-options";

/** Problems of the role mappings are said by line (`[2].role` is line 3), as the person wrote them. */
function byLine(error: string | undefined): string | undefined {
  return error?.replace(/(^|; )\[(\d+)\](\.\w+)?: /g, (_m, sep: string, index: string) => `${sep}line ${Number(index) + 1}: `);
}

/**
 * Adds a provider, or (with `provider`) edits one. The client secret is write-only: never
 * prefilled; left empty when editing, the stored one stays.
 */
export function ProviderForm({ provider }: { provider?: ProviderView }) {
  // Cleared once saved: the secret field empties, the others show what was stored.
  const { state, pending, formProps, errorAt } = useActionForm(provider ? updateProviderAction : createProviderAction, { resetOnSave: true });
  const id = useId();
  const f = (name: string) => `${id}-${name}`;
  return (
    <form {...formProps} className="space-y-3" data-testid={provider ? "edit-provider-form" : "add-provider-form"} autoComplete="off">
      {provider && <input type="hidden" name="id" value={provider.id} />}
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Name" htmlFor={f("name")} error={errorAt("name")} hint="On the sign-in button: Sign in with …">
          <TextInput id={f("name")} name="name" defaultValue={provider?.name} placeholder="Okta" />
        </Field>
        <Field label="Issuer URL" htmlFor={f("issuer")} error={errorAt("issuer")} hint="Its discovery document is at <issuer>/.well-known/openid-configuration">
          <TextInput id={f("issuer")} name="issuer" defaultValue={provider?.issuer} placeholder="https://example.okta.com" className="font-mono" spellCheck={false} />
        </Field>
        <Field label="Client ID" htmlFor={f("clientId")} error={errorAt("clientId")}>
          <TextInput id={f("clientId")} name="clientId" defaultValue={provider?.clientId} className="font-mono" spellCheck={false} />
        </Field>
        <Field
          label="Client secret"
          htmlFor={f("clientSecret")}
          error={errorAt("clientSecret")}
          hint={provider ? "Stored sealed and never shown; leave empty to keep it" : "Stored sealed; it cannot be read back"}
        >
          <TextInput id={f("clientSecret")} name="clientSecret" type="password" autoComplete="new-password" />
        </Field>
        <Field label="Scopes" htmlFor={f("scopes")} error={errorAt("scopes")} hint="openid is always asked for; add the scope that releases groups (often groups)">
          <TextInput id={f("scopes")} name="scopes" defaultValue={(provider?.scopes ?? ["openid", "email", "profile"]).join(" ")} className="font-mono" spellCheck={false} />
        </Field>
        <Field label="Groups claim" htmlFor={f("groupsClaim")} error={errorAt("groupsClaim")} hint="The ID token or userinfo claim listing the person's groups">
          <TextInput id={f("groupsClaim")} name="groupsClaim" defaultValue={provider?.groupsClaim ?? "groups"} className="font-mono" spellCheck={false} />
        </Field>
        <Field
          label="Groups → roles"
          htmlFor={f("roleMappings")}
          error={byLine(errorAt("roleMappings"))}
          hint="One per line: group = role (the default project) or group = project:role. In each project a line names, the highest matching role wins at every sign-in and no match takes the person out; empty: roles are set by admins after the first sign-in"
        >
          <TextArea id={f("roleMappings")} name="roleMappings" rows={3} defaultValue={formatMappingLines(provider?.roleMappings ?? [])} placeholder={"hookplane-admins = admin\nteam-a-devs = team-a:operator"} />
        </Field>
        <div className="space-y-3">
          <Field label="Everyone else" htmlFor={f("defaultRole")} error={errorAt("defaultRole")} hint="The role in the default project of a person no group maps there">
            <select id={f("defaultRole")} name="defaultRole" defaultValue={provider?.defaultRole ?? ""} className={inputClass}>
              <option value="">no access until an admin assigns a role</option>
              <RoleOptions />
            </select>
          </Field>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="createUsers" defaultChecked={provider?.createUsers ?? true} /> Create an account on a person&apos;s first sign-in
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="linkByEmail" defaultChecked={provider?.linkByEmail ?? false} /> Link to an existing account with the same email, when the
            provider says it is verified
          </label>
        </div>
      </div>
      <FormMessage state={state} />
      <Button type="submit" disabled={pending} data-testid="save-provider">
        {pending ? "Saving…" : provider ? "Save provider" : "Add provider"}
      </Button>
    </form>
  );
}
