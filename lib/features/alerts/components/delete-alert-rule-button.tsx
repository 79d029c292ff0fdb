"use client";

import { deleteAlertRuleAction } from "@/lib/features/alerts/alert-actions";
import { ConfirmDeleteButton } from "@/components/ui/confirm-delete-button";

export function DeleteAlertRuleButton({ id, name }: { id: string; name: string }) {
  return <ConfirmDeleteButton action={deleteAlertRuleAction} name="id" value={id} confirmMessage={`Delete the alert rule ${name} and its history?`} testId="delete-alert-rule" />;
}
