import { ROLES_BY_RANK } from "@/lib/platform/auth/roles";

/** The `<option>`s of a role `<select>`, least to most. */
export function RoleOptions() {
  return ROLES_BY_RANK.map((role) => (
    <option key={role} value={role}>
      {role}
    </option>
  ));
}
