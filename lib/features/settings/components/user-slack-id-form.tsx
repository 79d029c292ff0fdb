"use client";

import { setUserSlackIdAction } from "@/lib/features/settings/settings-actions";
import { inputClass } from "@/components/ui/field";
import { useActionToast } from "@/components/ui/use-action-toast";
import { useActionForm } from "@/components/ui/use-action-form";

/** The user's Slack member id: a click on an approval's Slack button decides as this user. Saved on Enter or blur. */
export function UserSlackIdForm({ id, email, slackUserId }: { id: string; email: string; slackUserId: string | null }) {
  const { state, pending, formProps } = useActionForm(setUserSlackIdAction);
  useActionToast(state);
  return (
    <form {...formProps} className="flex items-center gap-2">
      <input type="hidden" name="id" value={id} />
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
      {state.message && !state.ok && (
        <span role="alert" className="text-xs text-red-600 dark:text-red-400">
          {state.message}
        </span>
      )}
    </form>
  );
}
