"use client";

import { useState } from "react";
import { buttonClass } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { EXPORT_DIALECTS, type ExportDialectName } from "@/lib/core/dialects/types";

/** Dialects whose file describes one agent: they need one chosen. */
const ONE_AGENT: ReadonlySet<ExportDialectName> = new Set(["claude-code", "herdctl", "loom", "codex", "gemini-cli", "copilot", "cursor"]);

/**
 * Builds the download link of GET /api/v1/config/export. What the dialect cannot express is in
 * the response's X-Hookplane-Warnings header (the API shows it; a browser download does not).
 */
export function ExportMenu({ agents }: { agents: string[] }) {
  const [dialect, setDialect] = useState<ExportDialectName>("hookplane");
  const [format, setFormat] = useState<"yaml" | "json">("yaml");
  const [agent, setAgent] = useState("");
  const needsAgent = ONE_AGENT.has(dialect) && !agent && agents.length !== 1;
  const params = new URLSearchParams({ dialect, ...(dialect === "hookplane" ? { format } : {}), ...(agent ? { agent } : {}) });
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
          {EXPORT_DIALECTS.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
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
          {agents.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      {needsAgent ? (
        <span className="pb-2 text-sm text-zinc-500" data-testid="export-needs-agent">
          A {dialect} file describes one agent: choose it.
        </span>
      ) : (
        <a href={`/api/v1/config/export?${params}`} download className={buttonClass("secondary")} data-testid="export-download">
          Download
        </a>
      )}
    </div>
  );
}
