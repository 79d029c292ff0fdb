"use client";

import { useMemo, useState } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Field, Options, TextArea, TextInput, inputClass } from "@/components/ui/field";
import type { ImportSummary } from "@/lib/features/config-io/config-import";
import type { OnConflict } from "@/lib/features/config-io/import-request";
import { ApiClientError, apiFetch } from "@/lib/platform/api/api-fetch";
import { detectDialect } from "@/lib/core/dialects/detect";
import { DIALECT_NAMES, type DialectName } from "@/lib/core/dialects/types";
import { ImportPreview } from "./import-preview";

const DIALECT_LABELS: Record<DialectName, string> = {
  hookplane: "Hookplane (YAML or JSON)",
  "claude-code": "Claude Code settings.json / hooks.json",
  herdctl: "herdctl agent YAML",
  loom: "Loom agent.json",
  "tailored-ai": "Tailored AI config.yaml",
  agentopology: "AgenTopology .at",
  "standard-agents": "Standard Agents hook modules",
  codex: "Codex .codex/hooks.json",
  "gemini-cli": "Gemini CLI settings.json",
  copilot: "Copilot CLI .github/hooks/*.json",
  cursor: "Cursor .cursor/hooks.json",
};

type Content = string | { files: Record<string, string> };

/**
 * Paste or upload a config, check the detected dialect, preview what it creates (with every
 * warning and its path), then apply. Both steps call POST /api/v1/config/import; the preview is
 * its dry run, so what is shown is exactly what the server will do.
 */
export function ImportForm({ canApply }: { canApply: boolean }) {
  const [text, setText] = useState("");
  const [files, setFiles] = useState<Record<string, string> | undefined>();
  const [chosen, setChosen] = useState<DialectName | "">("");
  const [agent, setAgent] = useState("");
  const [onConflict, setOnConflict] = useState<OnConflict>("fail");
  const [preview, setPreview] = useState<ImportSummary | undefined>();
  const [applied, setApplied] = useState<ImportSummary | undefined>();
  const [error, setError] = useState<ApiClientError | undefined>();
  const [busy, setBusy] = useState(false);

  const content: Content | undefined = files ? { files } : text.trim() ? text : undefined;
  const detection = useMemo(() => (content ? detectDialect(typeof content === "string" ? content : content.files) : undefined), [content]);
  const dialect = chosen || detection?.dialect || "";

  const reset = () => {
    setPreview(undefined);
    setApplied(undefined);
    setError(undefined);
  };

  const onUpload = async (list: FileList | null) => {
    if (!list || list.length === 0) return;
    reset();
    if (list.length === 1) {
      setFiles(undefined);
      setText(await list[0].text());
      return;
    }
    // Several files are a Standard Agents hook folder: path → source.
    const entries = await Promise.all([...list].map(async (f) => [f.webkitRelativePath || f.name, await f.text()] as const));
    setFiles(Object.fromEntries(entries));
    setText("");
  };

  const send = async (dry: boolean) => {
    if (!content) return;
    setBusy(true);
    setError(undefined);
    try {
      const summary = await apiFetch<ImportSummary>("/api/v1/config/import", {
        method: "POST",
        body: JSON.stringify({ content, dry, onConflict, ...(dialect ? { dialect } : {}), ...(agent.trim() ? { agent: agent.trim() } : {}) }),
      });
      if (dry) setPreview(summary);
      else {
        setApplied(summary);
        setPreview(undefined);
        const { agents, hooks, schedules } = summary.created;
        toast.success(`Imported: ${agents.length} agent(s), ${hooks} hook(s), ${schedules} schedule(s) created`);
      }
    } catch (caught) {
      const failure = caught instanceof ApiClientError ? caught : new ApiClientError(0, (caught as Error).message);
      setError(failure);
      toast.error(failure.message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="space-y-6">
      <div className="space-y-4 rounded-lg border border-zinc-200 bg-white p-5 dark:border-zinc-800 dark:bg-zinc-900">
        <Field label="Config" htmlFor="import-content" hint="Paste a file, or upload one (several files for a Standard Agents hooks folder).">
          {files ? (
            <div className="flex items-center justify-between rounded-md border border-zinc-300 px-3 py-2 text-sm dark:border-zinc-700" data-testid="import-files">
              <span>{Object.keys(files).length} files: {Object.keys(files).join(", ")}</span>
              <button type="button" className="text-indigo-600 hover:underline dark:text-indigo-400" onClick={() => (setFiles(undefined), reset())}>
                Clear
              </button>
            </div>
          ) : (
            <TextArea
              id="import-content"
              rows={12}
              value={text}
              spellCheck={false}
              placeholder={'hookplane: 1\nagents:\n  - name: coder\nhooks:\n  - id: no-prod\n    event: tool.pre\n    …'}
              onChange={(e) => {
                setText(e.target.value);
                reset();
              }}
              data-testid="import-content"
            />
          )}
        </Field>
        <input
          type="file"
          multiple
          aria-label="Upload config files"
          className="block text-sm text-zinc-600 file:mr-3 file:rounded-md file:border-0 file:bg-zinc-100 file:px-3 file:py-1.5 file:text-sm dark:text-zinc-400 dark:file:bg-zinc-800 dark:file:text-zinc-200"
          onChange={(e) => void onUpload(e.target.files)}
          data-testid="import-upload"
        />
        <div className="grid gap-4 sm:grid-cols-3">
          <Field
            label="Dialect"
            htmlFor="import-dialect"
            hint={detection?.dialect ? `Detected ${detection.dialect}: ${detection.why}` : content ? `Not detected (${detection?.why}); choose one` : undefined}
          >
            <select
              id="import-dialect"
              className={inputClass}
              value={dialect}
              onChange={(e) => {
                setChosen(e.target.value as DialectName | "");
                reset();
              }}
              data-testid="import-dialect"
            >
              <option value="">Detect automatically</option>
              <Options choices={DIALECT_NAMES.map((name) => ({ value: name, label: DIALECT_LABELS[name] }))} />
            </select>
          </Field>
          <Field label="Agent" htmlFor="import-agent" hint="For hooks that name no agent (Claude Code, Standard Agents); created if missing.">
            <TextInput id="import-agent" value={agent} onChange={(e) => (setAgent(e.target.value), reset())} placeholder="my-agent" data-testid="import-agent" />
          </Field>
          <Field label="If something already exists" htmlFor="import-conflict">
            <select id="import-conflict" className={inputClass} value={onConflict} onChange={(e) => (setOnConflict(e.target.value as OnConflict), reset())} data-testid="import-conflict">
              <option value="fail">Stop and list the conflicts</option>
              <option value="skip">Keep the existing ones</option>
              <option value="update">Replace them (hooks get a new version)</option>
            </select>
          </Field>
        </div>
        <div className="flex gap-2">
          <Button type="button" variant="secondary" disabled={!content || busy} onClick={() => void send(true)} data-testid="import-preview-button">
            Preview
          </Button>
          {canApply && (
            <Button type="button" disabled={!preview || preview.conflicts.length > 0 || busy} onClick={() => void send(false)} data-testid="import-apply">
              Apply
            </Button>
          )}
        </div>
      </div>

      {error && (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200" data-testid="import-error">
          <p className="font-medium">{error.message}</p>
          {error.issues && error.issues.length > 0 && (
            <ul className="mt-2 space-y-1">
              {error.issues.map((issue, i) => (
                <li key={i}>
                  <code className="rounded bg-red-100 px-1 text-xs dark:bg-red-900">{issue.path}</code> {issue.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {applied && (
        <p role="status" className="rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200" data-testid="import-applied">
          Imported. Created {applied.created.agents.length} agent(s), {applied.created.hooks} hook(s), {applied.created.schedules} schedule(s); updated{" "}
          {applied.updated.hooks} hook(s); skipped {applied.skipped.hooks}.
        </p>
      )}
      {(applied ?? preview) && <ImportPreview summary={(applied ?? preview)!} />}
    </div>
  );
}
