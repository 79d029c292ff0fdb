import { Field, Options, inputClass } from "@/components/ui/field";
import { ROLES_BY_RANK } from "@/lib/platform/auth/roles";
import type { Role } from "@/db/schema";

/** The `<option>`s of a role `<select>`, least to most. */
export function RoleOptions() {
  return <Options choices={ROLES_BY_RANK} />;
}

/** The role a form gives what it makes (a member, a token): `role`, `defaultRole` chosen. */
export function RoleField({ id, defaultRole, error }: { id: string; defaultRole: Role; error?: string }) {
  return (
    <Field label="Role" htmlFor={id} error={error}>
      <select id={id} name="role" defaultValue={defaultRole} className={inputClass}>
        <RoleOptions />
      </select>
    </Field>
  );
}
