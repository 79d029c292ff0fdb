"use client";

import { createProjectAction, renameProjectAction } from "@/lib/features/settings/settings-actions";
import { Field, TextInput, inputClass } from "@/components/ui/field";
import { RowForm } from "@/components/ui/row-form";
import { InlineForm } from "@/components/ui/inline-form";
import { useActionForm } from "@/components/ui/use-action-form";

/** A new project (instance admins): its slug is for paths and never changes; its name is for people. */
export function CreateProjectForm() {
  const form = useActionForm(createProjectAction, { resetOnSave: true });
  return (
    <RowForm
      form={form}
      testId="create-project-form"
      columns="sm:grid-cols-[1fr_1fr_auto]"
      submit={{ label: "Create project", pendingLabel: "Creating…", testId: "create-project" }}
    >
      <Field label="Slug" htmlFor="project-slug" error={form.errorAt("slug")} hint="Lowercase letters, digits, dashes: team-a">
        <TextInput id="project-slug" name="slug" placeholder="team-a" autoComplete="off" spellCheck={false} className="font-mono" />
      </Field>
      <Field label="Name" htmlFor="project-name" error={form.errorAt("name")} hint="Shown in the switcher; the slug if empty">
        <TextInput id="project-name" name="name" placeholder="Team A" autoComplete="off" />
      </Field>
    </RowForm>
  );
}

/** Renames a project in place (Enter or the button saves). */
export function RenameProjectForm({ slug, name }: { slug: string; name: string }) {
  const form = useActionForm(renameProjectAction);
  const { state, pending } = form;
  return (
    <InlineForm form={form} fields={{ slug }}>
      <input
        name="name"
        defaultValue={name}
        aria-label={`Name of project ${slug}`}
        data-testid="project-name"
        className={`${inputClass} w-48 py-1`}
        aria-invalid={state.fieldErrors?.name ? true : undefined}
      />
      <button type="submit" disabled={pending} className="rounded text-xs text-indigo-600 hover:underline focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 disabled:opacity-50" data-testid="rename-project">
        {pending ? "Saving…" : "Rename"}
      </button>
    </InlineForm>
  );
}
