/**
 * A download of rows as CSV or NDJSON, streamed page by page: the next page is read only when
 * the client has taken the previous one, so exporting a large history holds one page in memory.
 * The first page is read before the status line, so a query that fails at once is an ordinary
 * error response. One that fails later cannot change the status any more: the download then ends
 * with an error line the client can see (NDJSON `{"error": ...}`, CSV `#error,...`) instead of a
 * cut connection that looks like a network fault.
 */
import { logger } from "@/lib/platform/logger";
import { csvLine } from "./csv";
import { EXPORT_CONTENT_TYPES, type ExportFormat } from "./export-format";

/** One CSV column: its header and how to read it from the exported object. */
export interface ExportColumn<T> {
  header: string;
  value: (row: T) => unknown;
}

export async function exportResponse<T>(params: {
  format: ExportFormat;
  /** Without the extension; a date is appended, e.g. `hookplane-runs` → `hookplane-runs-2025-01-31.csv`. */
  name: string;
  columns: readonly ExportColumn<T>[];
  pages: AsyncIterable<T[]>;
}): Promise<Response> {
  const { format, columns } = params;
  const encoder = new TextEncoder();
  const iterator = params.pages[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T[]>> | undefined = Promise.resolve(await iterator.next());
  let headerSent = false;
  let rowsSent = 0;

  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk = "";
      if (format === "csv" && !headerSent) {
        chunk += csvLine(columns.map((c) => c.header));
        headerSent = true;
      }
      try {
        const next = await (pending ?? iterator.next());
        pending = undefined;
        if (!next.done) {
          for (const row of next.value) {
            chunk += format === "csv" ? csvLine(columns.map((c) => c.value(row))) : `${JSON.stringify(row)}\n`;
          }
          rowsSent += next.value.length;
        }
        if (chunk) controller.enqueue(encoder.encode(chunk));
        if (next.done) controller.close();
      } catch (error) {
        logger.error({ err: error, export: params.name }, "export failed mid-stream");
        const message = `the export stopped after ${rowsSent} rows because of an error on our side (logged); the file is incomplete`;
        chunk += format === "csv" ? csvLine(["#error", message]) : `${JSON.stringify({ error: { code: "export_failed", message } })}\n`;
        controller.enqueue(encoder.encode(chunk));
        controller.close();
        await iterator.return?.(undefined).catch(() => {});
      }
    },
    async cancel() {
      await iterator.return?.(undefined);
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
