"use client";

import { useActionState } from "react";
import { revokeTokenAction } from "@/lib/features/settings/settings-actions";

export function RevokeTokenButton({ id }: { id: string }) {
  const [state, action, pending] = useActionState(revokeTokenAction, {});
  return (
    <form action={action}>
      <input type="hidden" name="id" value={id} />
      <button type="submit" disabled={pending} className="text-xs text-red-600 hover:underline disabled:opacity-50">
        {pending ? "Revoking…" : "Revoke"}
      </button>
      {state.message && !state.ok && <span className="ml-2 text-xs text-red-600">{state.message}</span>}
    </form>
  );
}
