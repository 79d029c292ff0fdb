/**
 * Between a stored row and what the API and the specs show: a NULL column is an absent field
 * there (undefined, left out of the JSON), and an absent field is a NULL column when stored. One
 * mapping each way, so a resource names its fields once instead of spelling `?? undefined` (or
 * `?? null`) on each; the fields come out in the order named, as the JSON shows them.
 */

/** A NULL column's type as an absent field: the null becomes undefined. */
type Absent<V> = null extends V ? Exclude<V, null> | undefined : V;
/** An optional field's type as a column: the undefined becomes NULL. */
type Stored<V> = undefined extends V ? Exclude<V, undefined> | null : V;

// Mapped over `K & string`, not over T's own keys, so no key keeps T's `?`: every key named is
// there, as it was in the object literal each mapping replaces.
export type FieldsOf<T, K extends keyof T> = { [P in K & string]: Absent<T[P]> };
export type ColumnsOf<T, K extends keyof T> = { [P in K & string]: Stored<T[P]> };

/** `row`'s `keys`, in that order, each NULL one as undefined. */
export function fieldsOf<T extends object, const K extends keyof T & string>(row: T, keys: readonly K[]): FieldsOf<T, K> {
  const fields: Record<string, unknown> = {};
  for (const key of keys) fields[key] = row[key] ?? undefined;
  return fields as FieldsOf<T, K>;
}

/** `value`'s `keys`, in that order, each undefined one as NULL. */
export function columnsOf<T extends object, const K extends keyof T & string>(value: T, keys: readonly K[]): ColumnsOf<T, K> {
  const columns: Record<string, unknown> = {};
  for (const key of keys) columns[key] = value[key] ?? null;
  return columns as ColumnsOf<T, K>;
}
