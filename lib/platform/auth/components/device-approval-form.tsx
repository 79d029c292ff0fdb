"use client";

import { decideDeviceAction } from "@/lib/platform/auth/device-actions";
import { Button } from "@/components/ui/button";
import { Field, Options, TextInput, inputClass } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";

/**
 * The code a terminal shows after `hookplane login`, the machine it says it is, the project the
 * credential will act in, and the person's answer. Nothing secret is shown here: the credential goes
 * to the terminal alone.
 */
export function DeviceApprovalForm({
  code,
  machine,
  projects,
  currentProject,
}: {
  code?: string;
  machine?: string;
  projects: { id: string; slug: string; name: string }[];
  currentProject: string;
}) {
  const { state, pending, formProps, errorAt } = useActionForm(decideDeviceAction);
  if (state.ok) {
    return (
      <p role="status" className="rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200" data-testid="device-decided">
        {state.message}
      </p>
    );
  }
  return (
    <form {...formProps} className="space-y-4" data-testid="device-form">
      <Field label="Code shown in the terminal" htmlFor="device-code" error={errorAt("userCode")}>
        <TextInput id="device-code" name="userCode" defaultValue={code} autoComplete="off" autoFocus={!code} placeholder="BCDF-GHJK" className="font-mono uppercase tracking-widest" />
      </Field>
      {machine && (
        <p className="text-sm" data-testid="device-machine">
          Asking: <strong>{machine}</strong>
        </p>
      )}
      <Field label="Project" htmlFor="device-project" error={errorAt("project")} hint="The coding agents on that machine will send their hook events there, as you.">
        <select id="device-project" name="project" defaultValue={currentProject} className={inputClass}>
          <Options choices={projects.map((p) => ({ value: p.id, label: `${p.name} (${p.slug})` }))} />
        </select>
      </Field>
      <p className="text-xs text-zinc-500">Approve only a code you started yourself, on a machine you use: whoever holds it acts as you.</p>
      <FormMessage state={state} />
      <div className="flex gap-2">
        <Button type="submit" name="decision" value="approve" disabled={pending} data-testid="device-approve">
          Approve
        </Button>
        <Button type="submit" name="decision" value="deny" variant="secondary" disabled={pending} data-testid="device-deny">
          Deny
        </Button>
      </div>
    </form>
  );
}
