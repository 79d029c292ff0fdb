"use client";

import { useState } from "react";
import { createScheduleAction } from "@/lib/features/schedules/schedule-actions";
import { SubmitButton } from "@/components/ui/button";
import { Field, Options, TextArea, TextInput, inputClass } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-message";
import { useActionForm } from "@/components/ui/use-action-form";

export function CreateScheduleForm({ agents }: { agents: string[] }) {
  const [timing, setTiming] = useState<"cron" | "interval">("cron");
  const { state, pending, formProps, errorAt } = useActionForm(createScheduleAction, { resetOnSave: true, onSaved: () => setTiming("cron") });
  return (
    <form {...formProps} className="space-y-3" data-testid="create-schedule-form">
      <div className="grid gap-3 sm:grid-cols-[12rem_9rem_1fr] sm:items-start">
        <Field label="Agent" htmlFor="schedule-agent" error={errorAt("agent")}>
          <select id="schedule-agent" name="agent" className={inputClass} defaultValue={agents[0] ?? ""}>
            <Options choices={agents} />
          </select>
        </Field>
        <Field label="Timing" htmlFor="schedule-timing" error={errorAt("timing")}>
          <select id="schedule-timing" name="timing" value={timing} onChange={(e) => setTiming(e.target.value as "cron" | "interval")} className={inputClass}>
            <option value="cron">cron</option>
            <option value="interval">interval</option>
          </select>
        </Field>
        {timing === "cron" ? (
          <Field label="Cron expression" htmlFor="schedule-cron" error={errorAt("cron")} hint="Five fields, UTC: */15 * * * * runs every 15 minutes">
            <TextInput id="schedule-cron" name="cron" placeholder="0 9 * * 1-5" className="font-mono" />
          </Field>
        ) : (
          <Field label="Interval (ms)" htmlFor="schedule-interval" error={errorAt("intervalMs") ?? errorAt("cron")} hint="Milliseconds, at least 1000: 3600000 is hourly">
            <TextInput id="schedule-interval" name="intervalMs" type="number" min={1000} step={1000} placeholder="3600000" />
          </Field>
        )}
      </div>
      <Field label="Prompt" htmlFor="schedule-prompt" error={errorAt("prompt")}>
        <TextArea id="schedule-prompt" name="prompt" rows={2} className="font-sans" placeholder="Summarize yesterday's failed runs" />
      </Field>
      <div className="flex items-center gap-3">
        <SubmitButton pending={pending} disabled={agents.length === 0} label="Create schedule" pendingLabel="Creating…" testId="create-schedule" />
        {agents.length === 0 && <span className="text-xs text-zinc-500">Create an agent first.</span>}
      </div>
      <FormMessage state={state} />
    </form>
  );
}
