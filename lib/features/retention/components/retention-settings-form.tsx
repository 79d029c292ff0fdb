"use client";

import { saveRetentionAction } from "@/lib/features/retention/retention-actions";
import type { RetentionSettings } from "@/lib/features/retention/retention-settings";
import { SubmitButton } from "@/components/ui/button";
import { Field, TextInput } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";

const FIELDS = [
  { key: "runDays", label: "Runs (default)", hint: "After a run finishes, with its events, transcript and approvals. An agent's own value overrides it." },
  { key: "ledgerDays", label: "Hook ledger", hint: "One hash chain for every agent: its oldest whole days go." },
  { key: "auditDays", label: "Audit log", hint: "Also a hash chain: its oldest whole days go, anchored." },
] as const;

/** Days kept, 0 or empty for forever. Admins edit; everyone else reads the same values. */
export function RetentionSettingsForm({ settings, canEdit }: { settings: RetentionSettings; canEdit: boolean }) {
  const { state, pending, formProps, errorAt } = useActionForm(saveRetentionAction);
    return (
    <form {...formProps} className="space-y-3" data-testid="retention-form" noValidate>
      <fieldset disabled={!canEdit || pending} className="grid gap-3 sm:grid-cols-3">
        {FIELDS.map((f) => (
          <Field key={f.key} label={`${f.label} (days)`} htmlFor={`retention-${f.key}`} hint={f.hint} error={errorAt(f.key)}>
            <TextInput
              id={`retention-${f.key}`}
              name={f.key}
              inputMode="numeric"
              defaultValue={settings[f.key] > 0 ? settings[f.key] : ""}
              placeholder="forever"
              data-testid={`retention-${f.key}`}
            />
          </Field>
        ))}
      </fieldset>
      {canEdit && (
        <SubmitButton pending={pending} label="Save retention" pendingLabel="Saving…" testId="save-retention" />
      )}
      <FormMessage state={state} />
    </form>
  );
}
