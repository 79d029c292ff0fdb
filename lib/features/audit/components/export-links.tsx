import { Download } from "lucide-react";
import { buttonClass } from "@/components/ui/button";

/**
 * Download links for an export endpoint with the current filters. Plain links: the browser
 * streams the file with the session cookie, however large it is.
 */
export function ExportLinks({ endpoint, query, testIdPrefix }: { endpoint: string; query: string; testIdPrefix: string }) {
  return (
    <div className="flex gap-2" role="group" aria-label="Export">
      {(["csv", "ndjson"] as const).map((format) => (
        <a
          key={format}
          href={`${endpoint}?format=${format}${query ? `&${query}` : ""}`}
          download
          className={buttonClass("secondary")}
          data-testid={`${testIdPrefix}-${format}`}
        >
          <Download className="h-4 w-4" aria-hidden />
          {format.toUpperCase()}
        </a>
      ))}
    </div>
  );
}
