/** Opaque list cursors: base64url JSON of the last row's sort key. */
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

/** Given limit+1 rows, the page and the cursor for the next one. */
export function paginate<T>(rows: T[], limit: number, keyOf: (row: T) => unknown) {
  const items = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? encodeCursor(keyOf(items[items.length - 1])) : null;
  return { items, nextCursor };
}
