import { z } from "zod";
import { cursorSchema } from "./cursor";
import { pgDateSchema } from "@/lib/core/safe-input";

const limitSchema = z.coerce.number().int().min(1).max(200).default(50);

/** `limit` and `cursor` of every list endpoint (api.md), the cursor checked against `key`. */
export function listQuerySchema<S extends z.ZodType>(key: S) {
  return z.object({ limit: limitSchema, cursor: cursorSchema(key).optional() });
}

/** A timestamp in a cursor, as the ISO text the queries compare with. */
export const cursorTimeSchema = pgDateSchema.transform((date) => date.toISOString());

/** The key of lists that page by a bigserial id (audit log, hook ledger). */
export const serialKeySchema = z.object({ id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }).strict();

