/**
 * RFC 4180 CSV: every field that holds a comma, a quote, a line break or edge whitespace is quoted,
 * quotes doubled, lines end with CRLF, so spreadsheets and CSV parsers read back exactly what was
 * stored (prompts with newlines included). Cells are not prefixed against formula injection: the
 * export is an audit record and must round-trip byte for byte.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text =
    value instanceof Date ? value.toISOString() : typeof value === "object" ? JSON.stringify(value) : String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(",")}\r\n`;
}
