"use client";

import { useActionState, useEffect } from "react";
import { toast } from "sonner";
import { deleteHookAction } from "@/lib/features/hooks/hook-actions";
import { Button } from "@/components/ui/button";

export function DeleteHookButton({ id, label }: { id: string; label: string }) {
  const [state, action, pending] = useActionState(deleteHookAction, {});
  useEffect(() => {
    if (state.message && !state.ok) toast.error(state.message);
  }, [state]);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!confirm(`Delete the hook ${label} and its version history? The audit log keeps a copy.`)) e.preventDefault();
      }}
    >
      <input type="hidden" name="id" value={id} />
      <Button type="submit" variant="danger" disabled={pending} data-testid="delete-hook">
        {pending ? "Deleting…" : "Delete"}
      </Button>
    </form>
  );
}
