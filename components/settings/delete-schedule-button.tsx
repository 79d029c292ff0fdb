"use client";

import { useActionState } from "react";
import { deleteScheduleAction } from "@/app/actions/schedules";
import { useActionToast } from "./use-action-toast";

export function DeleteScheduleButton({ id, label }: { id: string; label: string }) {
  const [state, action, pending] = useActionState(deleteScheduleAction, {});
  useActionToast(state);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!confirm(`Delete the schedule ${label} and its hooks?`)) e.preventDefault();
      }}
    >
      <input type="hidden" name="id" value={id} />
      <button type="submit" disabled={pending} className="text-xs text-red-600 hover:underline disabled:opacity-50" data-testid="delete-schedule">
        {pending ? "Deleting…" : "Delete"}
      </button>
    </form>
  );
}
