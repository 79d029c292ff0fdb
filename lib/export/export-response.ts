/**
 * A download of rows as CSV or NDJSON, streamed page by page: the next page is read only when
 * the client has taken the previous one, so exporting a large history holds one page in memory.
 */
import { logger } from "@/lib/logger";
import { csvLine } from "./csv";
import { EXPORT_CONTENT_TYPES, type ExportFormat } from "./export-format";

/** One CSV column: its header and how to read it from the exported object. */
export interface ExportColumn<T> {
  header: string;
  value: (row: T) => unknown;
}

export function exportResponse<T>(params: {
  format: ExportFormat;
  /** Without the extension; a date is appended, e.g. `hookplane-runs` → `hookplane-runs-2025-01-31.csv`. */
  name: string;
  columns: readonly ExportColumn<T>[];
  pages: AsyncIterable<T[]>;
}): Response {
  const { format, columns } = params;
  const encoder = new TextEncoder();
  const iterator = params.pages[Symbol.asyncIterator]();
  let headerSent = false;

  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        let chunk = "";
        if (format === "csv" && !headerSent) {
          chunk += csvLine(columns.map((c) => c.header));
          headerSent = true;
        }
        const next = await iterator.next();
        if (!next.done) {
          for (const row of next.value) {
            chunk += format === "csv" ? csvLine(columns.map((c) => c.value(row))) : `${JSON.stringify(row)}\n`;
          }
        }
        if (chunk) controller.enqueue(encoder.encode(chunk));
        if (next.done) controller.close();
      } catch (error) {
        // The status line is already sent; all that is left is to cut the download short.
        logger.error({ err: error, export: params.name }, "export failed mid-stream");
        controller.error(error);
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });

  const filename = `${params.name}-${new Date().toISOString().slice(0, 10)}.${format}`;
  return new Response(body, {
    headers: {
      "content-type": EXPORT_CONTENT_TYPES[format],
      "content-disposition": `attachment; filename="${filename}"`,
      "cache-control": "no-store",
    },
  });
}

/**
 * Every row of a keyset-paginated query, one page at a time: `fetchPage(after)` reads the page
 * after the given row (the first page when undefined).
 */
export async function* keysetPages<T>(fetchPage: (after: T | undefined) => Promise<T[]>, pageSize: number): AsyncGenerator<T[]> {
  let after: T | undefined;
  for (;;) {
    const rows = await fetchPage(after);
    if (rows.length > 0) yield rows;
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1];
  }
}
