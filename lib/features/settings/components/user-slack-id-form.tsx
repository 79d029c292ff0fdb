"use client";

import { setUserSlackIdAction } from "@/lib/features/settings/settings-actions";
import { inputClass } from "@/components/ui/field";
import { InlineForm } from "@/components/ui/inline-form";
import { useActionForm } from "@/components/ui/use-action-form";

/** The user's Slack member id: a click on an approval's Slack button decides as this user. Saved on Enter or blur. */
export function UserSlackIdForm({ id, email, slackUserId }: { id: string; email: string; slackUserId: string | null }) {
  const form = useActionForm(setUserSlackIdAction);
  const { state, pending } = form;
  return (
    <InlineForm form={form} fields={{ id }}>
      <input
        // A new saved value replaces the field; a refused one stays in it to be corrected.
        key={slackUserId ?? ""}
        name="slackUserId"
        defaultValue={slackUserId ?? ""}
        placeholder="U0123ABCD"
        readOnly={pending}
        aria-invalid={state.message && !state.ok ? true : undefined}
        aria-label={`Slack member id of ${email}`}
        data-testid="user-slack-id"
        onBlur={(e) => {
          if (e.currentTarget.value.trim() !== (slackUserId ?? "")) e.currentTarget.form?.requestSubmit();
        }}
        className={`${inputClass} w-36 py-1 font-mono text-xs`}
      />
    </InlineForm>
  );
}
