/**
 * RFC 4180 CSV: every field that holds a comma, a quote, a line break or edge whitespace is quoted,
 * quotes doubled, lines end with CRLF, so CSV parsers read back what was stored (prompts with
 * newlines included). Text that a spreadsheet would run as a formula (it starts with `=`, `+`, `-`,
 * `@`, a tab or a carriage return: OWASP's CSV injection list) gets a leading `'`, the mark
 * spreadsheets read as "this is text": a prompt `=cmd|' /C calc'!A0` opens as that text, not as a
 * command. Numbers, booleans and dates are written as they are (a negative number is no formula).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text: string;
  if (value instanceof Date) text = value.toISOString();
  else if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") text = String(value);
  else {
    text = typeof value === "object" ? JSON.stringify(value) : String(value);
    if (FORMULA_START.test(text)) text = `'${text}`;
  }
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(",")}\r\n`;
}
