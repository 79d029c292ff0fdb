/**
 * Reading CSV in tests: the audit export's and a published corpus's. Strict enough to catch a
 * writer that forgets to quote or escape.
 */
/** RFC 4180 reader, strict enough to catch a writer that forgets to quote or escape. */
export function parseCsv(text: string, options: { crlf?: boolean } = {}): string[][] {
  // The audit export ends each line with CRLF (RFC 4180); a published corpus may use LF.
  const crlf = options.crlf ?? true;
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') {
      if (field !== "") throw new Error(`stray quote at ${i}`);
      quoted = true;
    } else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else if (!crlf && c === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else if (c === "\n" || c === "\r") throw new Error(`bare line break at ${i}`);
    else field += c;
  }
  if (quoted) throw new Error("unterminated quote");
  if (field !== "" || row.length) {
    if (crlf) throw new Error("last line has no CRLF");
    row.push(field);
    rows.push(row);
  }
  return rows;
}
