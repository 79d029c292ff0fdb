"use client";

import { useEffect } from "react";
import { toast } from "sonner";
import type { ActionState } from "@/lib/platform/api/action-state";

/** Announces each new result of a server action as a toast (the state object changes per submit). */
export function useActionToast(state: ActionState) {
  useEffect(() => {
    if (!state.message) return;
    if (state.ok) toast.success(state.message);
    else toast.error(state.message);
  }, [state]);
}
