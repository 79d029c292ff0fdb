"use client";

import { deleteSecretAction } from "@/app/actions/secrets";
import { ConfirmDeleteButton } from "./confirm-delete-button";

export function DeleteSecretButton({ name }: { name: string }) {
  return <ConfirmDeleteButton action={deleteSecretAction} name="name" value={name} confirmMessage={`Delete the secret ${name}? Hooks that name it will run without it.`} testId="delete-secret" />;
}
