"use client";

import { ConfirmDeleteButton } from "@/components/ui/confirm-delete-button";
import { deleteProviderAction } from "@/lib/features/sso/sso-actions";

export function DeleteProviderButton({ id, name }: { id: string; name: string }) {
  return (
    <ConfirmDeleteButton
      action={deleteProviderAction}
      name="id"
      value={id}
      confirmMessage={`Delete ${name}? People signed in through it are signed out; their accounts stay.`}
      testId="delete-provider"
    />
  );
}
