"use client";

import { useActionState } from "react";
import { deleteAgentAction } from "@/lib/features/agents/agent-actions";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";

export function DeleteAgentButton({ id, name }: { id: string; name: string }) {
  const [state, action, pending] = useActionState(deleteAgentAction, {});
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!confirm(`Delete ${name} and its run history? This cannot be undone.`)) e.preventDefault();
      }}
    >
      <input type="hidden" name="id" value={id} />
      <Button type="submit" variant="danger" disabled={pending} data-testid="delete-agent">
        {pending ? "Deleting…" : "Delete"}
      </Button>
      <FormMessage state={state} />
    </form>
  );
}
