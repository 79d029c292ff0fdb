import { z } from "zod";

/** `limit` and `cursor` of every list endpoint (api.md). */
export const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().optional(),
});
