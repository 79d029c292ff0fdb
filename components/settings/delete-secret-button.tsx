"use client";

import { useActionState } from "react";
import { deleteSecretAction } from "@/app/actions/secrets";
import { useActionToast } from "./use-action-toast";

export function DeleteSecretButton({ name }: { name: string }) {
  const [state, action, pending] = useActionState(deleteSecretAction, {});
  useActionToast(state);
  return (
    <form
      action={action}
      onSubmit={(e) => {
        if (!confirm(`Delete the secret ${name}? Hooks that name it will run without it.`)) e.preventDefault();
      }}
    >
      <input type="hidden" name="name" value={name} />
      <button type="submit" disabled={pending} className="text-xs text-red-600 hover:underline disabled:opacity-50" data-testid="delete-secret">
        {pending ? "Deleting…" : "Delete"}
      </button>
    </form>
  );
}
