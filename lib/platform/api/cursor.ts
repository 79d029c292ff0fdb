import { z } from "zod";

/**
 * Opaque list cursors: base64url JSON of the last row's sort key. A cursor comes back from the
 * client, so it is outside input like any other: each list declares its key's schema and a cursor
 * that does not decode to exactly that shape is a 422 at `cursor`, before it reaches the query.
 */
export function encodeCursor(key: unknown): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

export function decodeCursor<T>(cursor: string | undefined | null): T | undefined {
  if (!cursor) return undefined;
  try {
    return JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as T;
  } catch {
    return undefined;
  }
}

const FORGED = "cursor is not one this list returned; start again without it";

/** The query field `cursor`, decoded and checked against the key schema of its list. */
export function cursorSchema<S extends z.ZodType>(key: S) {
  return z
    .string()
    .max(2000, FORGED)
    .transform((text, ctx): z.output<S> => {
      const parsed = key.safeParse(decodeCursor<unknown>(text));
      if (!parsed.success) {
        ctx.addIssue({ code: "custom", message: FORGED });
        return z.NEVER;
      }
      return parsed.data;
    });
}

/** Given limit+1 rows, the page and the cursor for the next one. */
export function paginate<T>(rows: T[], limit: number, keyOf: (row: T) => unknown) {
  const items = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? encodeCursor(keyOf(items[items.length - 1])) : null;
  return { items, nextCursor };
}
