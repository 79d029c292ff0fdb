/**
 * Reading back what the export route says it could not express (its X-Hookplane-Warnings header,
 * written by warningsHeader): the browser's download shows them, not only API callers. Pure, so
 * it is tested beside the writer.
 */
export interface ExportWarning {
  path: string;
  message: string;
}

/** The warnings of a header value; a missing or unreadable header is none, said as such by the caller. */
export function parseWarningsHeader(value: string | null): ExportWarning[] {
  if (!value) return [];
  try {
    const list: unknown = JSON.parse(value);
    if (!Array.isArray(list)) return [];
    return list.filter((w): w is ExportWarning => typeof w?.message === "string").map((w) => ({ path: typeof w.path === "string" ? w.path : "", message: w.message }));
  } catch {
    return [{ path: "", message: "The export reported warnings this page could not read; the API's X-Hookplane-Warnings header has them." }];
  }
}

/** The file name of a Content-Disposition header (`attachment; filename="x.yaml"`), or the fallback. */
export function attachmentName(value: string | null, fallback: string): string {
  const match = value && /filename="([^"]+)"/.exec(value);
  return match ? match[1] : fallback;
}
