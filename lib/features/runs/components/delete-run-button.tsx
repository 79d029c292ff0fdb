"use client";

import { deleteRunAction } from "@/lib/features/runs/run-actions";
import { DangerDeleteButton } from "@/components/ui/confirm-delete-button";

/** Admins only (the page shows it to them alone; the action checks again). */
export function DeleteRunButton({ id, finished }: { id: string; finished: boolean }) {
  const question = finished
    ? "Delete this run with its events, transcript, approvals and hook ledger rows? This cannot be undone; the audit log records it."
    : "This run has not finished: cancel it first. Try anyway?";
  return <DangerDeleteButton action={deleteRunAction} id={id} confirmMessage={question} label="Delete run" testId="delete-run" />;
}
