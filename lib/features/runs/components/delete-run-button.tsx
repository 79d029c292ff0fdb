"use client";

import { useActionState } from "react";
import { deleteRunAction } from "@/lib/features/runs/run-actions";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";

/** Admins only (the page shows it to them alone; the action checks again). */
export function DeleteRunButton({ id, finished }: { id: string; finished: boolean }) {
  const [state, action, pending] = useActionState(deleteRunAction, {});
  return (
    <form
      action={action}
      onSubmit={(e) => {
        const question = finished
          ? "Delete this run with its events, transcript, approvals and hook ledger rows? This cannot be undone; the audit log records it."
          : "This run has not finished: cancel it first. Try anyway?";
        if (!confirm(question)) e.preventDefault();
      }}
    >
      <input type="hidden" name="id" value={id} />
      <Button type="submit" variant="danger" disabled={pending} data-testid="delete-run">
        {pending ? "Deleting…" : "Delete run"}
      </Button>
      <FormMessage state={state} />
    </form>
  );
}
