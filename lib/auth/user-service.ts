import { z } from "zod";
import type { Db } from "@/db/client";
import { logAudit } from "@/db/queries/audit";
import { createUser, getUserByEmail } from "@/db/queries/users";
import { ROLES } from "@/db/schema";
import { ApiError } from "@/lib/api/errors";
import { credentialsSchema } from "./account-service";
import { hashPassword } from "./password";
import type { Principal } from "./roles";

export const newUserSchema = credentialsSchema.extend({ role: z.enum(ROLES) });

export async function createUserAudited(db: Db, principal: Principal, input: z.infer<typeof newUserSchema>) {
  if (await getUserByEmail(db, { email: input.email })) throw ApiError.conflict(`${input.email} already has an account`);
  const user = await createUser(db, { email: input.email, role: input.role, passwordHash: await hashPassword(input.password) });
  await logAudit(db, { actor: principal.label, action: "user.create", entityType: "user", entityId: user.id, after: { email: user.email, role: user.role } });
  return { id: user.id, email: user.email, role: user.role };
}
