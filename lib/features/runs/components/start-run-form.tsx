"use client";

import { startRunAction } from "@/lib/features/runs/run-actions";
import { SubmitButton } from "@/components/ui/button";
import { TextArea } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";

export function StartRunForm({ agentName }: { agentName: string }) {
  const { state, pending, formProps } = useActionForm(startRunAction);
  return (
    <form {...formProps} className="space-y-2 rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900" data-testid="start-run-form">
      <input type="hidden" name="agent" value={agentName} />
      <label htmlFor="prompt" className="block text-sm font-semibold">
        Start a run
      </label>
      <TextArea id="prompt" name="prompt" rows={2} placeholder="What should the agent do?" required className="font-sans" />
      <FormMessage state={state} />
      <SubmitButton pending={pending} label="Start run" pendingLabel="Starting…" testId="start-run" />
    </form>
  );
}
