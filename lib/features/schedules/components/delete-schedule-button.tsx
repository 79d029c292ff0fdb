"use client";

import { deleteScheduleAction } from "@/lib/features/schedules/schedule-actions";
import { ConfirmDeleteButton } from "@/components/ui/confirm-delete-button";

export function DeleteScheduleButton({ id, label }: { id: string; label: string }) {
  return <ConfirmDeleteButton action={deleteScheduleAction} name="id" value={id} confirmMessage={`Delete the schedule ${label} and its hooks?`} testId="delete-schedule" />;
}
