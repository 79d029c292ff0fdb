/**
 * A value written into a statement's text as a dollar-quoted literal, which PostgreSQL reads into
 * the type of the prepared parameter it stands for, as it reads a text parameter. No escaping to
 * get wrong: the quote's tag is one the value does not contain. For EXECUTE of a statement
 * PREPAREd once (db/client.ts on PGlite, db/postgres-group-commit.ts on PostgreSQL).
 */
export function dollarQuoted(value: unknown): string {
  if (value === null || value === undefined) return "null";
  const text = String(value);
  let tag = "$v$";
  for (let n = 1; text.includes(tag); n++) tag = `$v${n}$`;
  return `${tag}${text}${tag}`;
}

/**
 * Whether a value can be written so: a string without NUL (a query's text cannot hold one), a
 * number, a boolean, a bigint or null. Arrays, objects and dates go as parameters, whose encoding
 * is the driver's.
 */
export function isLiteralValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  switch (typeof value) {
    case "string":
      return !value.includes("\u0000");
    case "number":
      return Number.isFinite(value);
    case "boolean":
    case "bigint":
      return true;
    default:
      return false;
  }
}

/** An EXECUTE of a PREPAREd statement with its parameters as literals (`execute name()` is a syntax error: no parentheses without parameters). */
export function executeText(name: string, params: readonly unknown[]): string {
  return `execute ${name}${params.length > 0 ? `(${params.map(dollarQuoted).join(", ")})` : ""}`;
}
