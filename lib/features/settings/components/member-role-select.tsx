"use client";

import { useActionState, useRef } from "react";
import { changeMemberRoleAction } from "@/lib/features/settings/settings-actions";
import { inputClass } from "@/components/ui/field";
import type { Role } from "@/db/schema";
import { useActionToast } from "@/components/ui/use-action-toast";
import { Refusal } from "@/components/ui/inline-form";
import { RoleOptions } from "@/lib/platform/auth/components/role-options";

/** A member's role in the current project, saved on change; a refused change (the last admin) snaps back. */
export function MemberRoleSelect({ userId, email, role }: { userId: string; email: string; role: Role }) {
  const [state, action, pending] = useActionState(changeMemberRoleAction, {});
  const form = useRef<HTMLFormElement>(null);
  useActionToast(state);
  return (
    <form ref={form} action={action} className="flex items-center gap-2">
      <input type="hidden" name="userId" value={userId} />
      <div className="w-32 shrink-0">
        <select
          key={`${role}-${state.message ?? ""}`}
          name="role"
          defaultValue={role}
          disabled={pending}
          aria-label={`Role of ${email}`}
          data-testid="user-role"
          onChange={() => form.current?.requestSubmit()}
          className={`${inputClass} py-1`}
        >
          <RoleOptions />
        </select>
      </div>
      <Refusal state={state} testId="user-role-error" />
    </form>
  );
}
