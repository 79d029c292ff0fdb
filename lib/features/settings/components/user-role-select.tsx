"use client";

import { useActionState, useRef } from "react";
import { changeUserRoleAction } from "@/lib/features/settings/settings-actions";
import { inputClass } from "@/components/ui/field";
import type { Role } from "@/db/schema";
import { useActionToast } from "@/components/ui/use-action-toast";

/**
 * Saves on change; a refused change (the last admin) snaps back to the stored role. A person
 * single sign-on created without access (role null) shows "no access" until an admin picks a role.
 */
export function UserRoleSelect({ id, email, role }: { id: string; email: string; role: Role | null }) {
  const [state, action, pending] = useActionState(changeUserRoleAction, {});
  const form = useRef<HTMLFormElement>(null);
  useActionToast(state);
  return (
    <form ref={form} action={action} className="flex items-center gap-2">
      <input type="hidden" name="id" value={id} />
      <div className="w-32 shrink-0">
        <select
          key={`${role}-${state.message ?? ""}`}
          name="role"
          defaultValue={role ?? ""}
          disabled={pending}
          aria-label={`Role of ${email}`}
          data-testid="user-role"
          onChange={() => form.current?.requestSubmit()}
          className={`${inputClass} py-1`}
        >
          {role === null && (
            <option value="" disabled>
              no access
            </option>
          )}
          <option value="viewer">viewer</option>
          <option value="operator">operator</option>
          <option value="admin">admin</option>
        </select>
      </div>
      {state.message && !state.ok && (
        <span role="alert" className="text-xs text-red-600 dark:text-red-400" data-testid="user-role-error">
          {state.message}
        </span>
      )}
    </form>
  );
}
