"use client";

import { deleteSecretAction } from "@/lib/features/secrets/secret-actions";
import { ConfirmDeleteButton } from "@/components/ui/confirm-delete-button";

export function DeleteSecretButton({ name }: { name: string }) {
  return <ConfirmDeleteButton action={deleteSecretAction} name="name" value={name} confirmMessage={`Delete the secret ${name}? Hooks that name it will run without it.`} testId="delete-secret" />;
}
