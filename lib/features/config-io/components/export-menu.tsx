"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Options, inputClass } from "@/components/ui/field";
import { attachmentName, parseWarningsHeader, type ExportWarning } from "@/lib/features/config-io/export-warnings";
import { EXPORT_DIALECTS, type ExportDialectName } from "@/lib/core/dialects/types";

/** Dialects whose file describes one agent: they need one chosen. */
const ONE_AGENT: ReadonlySet<ExportDialectName> = new Set(["claude-code", "herdctl", "loom", "codex", "gemini-cli", "copilot", "cursor"]);

type ExportResult = { kind: "done"; file: string; dialect: ExportDialectName; warnings: ExportWarning[] } | { kind: "failed"; message: string };

/**
 * Downloads GET /api/v1/config/export. Fetched rather than followed as a link: what the dialect
 * cannot express is in the response's X-Hookplane-Warnings header, which a plain browser download
 * never shows; here it is listed under the menu, and a refusal is said instead of saved as a file.
 */
export function ExportMenu({ agents }: { agents: string[] }) {
  const [dialect, setDialect] = useState<ExportDialectName>("hookplane");
  const [format, setFormat] = useState<"yaml" | "json">("yaml");
  const [agent, setAgent] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ExportResult>();
  const needsAgent = ONE_AGENT.has(dialect) && !agent && agents.length !== 1;
  const params = new URLSearchParams({ dialect, ...(dialect === "hookplane" ? { format } : {}), ...(agent ? { agent } : {}) });
  const url = `/api/v1/config/export?${params}`;
  const download = async () => {
    setBusy(true);
    setResult(undefined);
    try {
      const response = await fetch(url, { credentials: "same-origin" });
      if (!response.ok) {
        const body = await response.json().catch(() => undefined);
        setResult({ kind: "failed", message: body?.error?.message ?? `The export failed (${response.status})` });
        return;
      }
      const file = attachmentName(response.headers.get("content-disposition"), `hookplane-${dialect}.txt`);
      const link = document.createElement("a");
      link.href = URL.createObjectURL(await response.blob());
      link.download = file;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      setResult({ kind: "done", file, dialect, warnings: parseWarningsHeader(response.headers.get("x-hookplane-warnings")) });
    } catch {
      setResult({ kind: "failed", message: "The export could not be fetched: is the server reachable?" });
    } finally {
      setBusy(false);
    }
  };
  const label = (id: string, text: string) => (
    <label htmlFor={id} className="block text-xs font-medium text-zinc-600 dark:text-zinc-400">
      {text}
    </label>
  );
  return (
    <div className="flex flex-wrap items-end gap-3 rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900" data-testid="export-menu">
      <div className="space-y-1">
        {label("export-dialect", "Dialect")}
        <select id="export-dialect" className={inputClass} value={dialect} onChange={(e) => setDialect(e.target.value as ExportDialectName)} data-testid="export-dialect">
          <Options choices={EXPORT_DIALECTS} />
        </select>
      </div>
      {dialect === "hookplane" && (
        <div className="space-y-1">
          {label("export-format", "Format")}
          <select id="export-format" className={inputClass} value={format} onChange={(e) => setFormat(e.target.value as "yaml" | "json")} data-testid="export-format">
            <option value="yaml">YAML</option>
            <option value="json">JSON</option>
          </select>
        </div>
      )}
      <div className="space-y-1">
        {label("export-agent", "Agent")}
        <select id="export-agent" className={inputClass} value={agent} onChange={(e) => setAgent(e.target.value)} data-testid="export-agent">
          <option value="">{ONE_AGENT.has(dialect) ? "Choose an agent" : "All agents"}</option>
          <Options choices={agents} />
        </select>
      </div>
      {needsAgent ? (
        <span className="pb-2 text-sm text-zinc-500" data-testid="export-needs-agent">
          A {dialect} file describes one agent: choose it.
        </span>
      ) : (
        <Button type="button" variant="secondary" onClick={download} disabled={busy} data-testid="export-download">
          {busy ? "Exporting…" : "Download"}
        </Button>
      )}
      {result && (
        <div className="basis-full text-sm" role={result.kind === "failed" ? "alert" : "status"} data-testid="export-result">
          {result.kind === "failed" ? (
            <p className="text-red-700 dark:text-red-300">{result.message}</p>
          ) : result.warnings.length === 0 ? (
            <p className="text-zinc-600 dark:text-zinc-400">Saved {result.file}: everything was expressed in {result.dialect}.</p>
          ) : (
            <>
              <p className="text-amber-800 dark:text-amber-300">
                Saved {result.file}, with {result.warnings.length} warning{result.warnings.length === 1 ? "" : "s"}: what {result.dialect} cannot express.
              </p>
              <ul className="mt-1 list-disc space-y-0.5 pl-5 text-zinc-700 dark:text-zinc-300" data-testid="export-warnings">
                {result.warnings.map((w, i) => (
                  <li key={i} className="break-words">
                    {w.path && <span className="font-mono">{w.path}</span>}
                    {w.path && ": "}
                    {w.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </div>
  );
}
