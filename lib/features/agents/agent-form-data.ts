/**
 * Reads the agent form into the shape agentSpecSchema validates. Bad JSON in the script field
 * becomes a field error rather than an exception.
 */
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "@/lib/core/safe-input";

export const KNOWN_TOOLS = ["shell", "read_file", "write_file", "list_files", "http_request", "memory"] as const;

function text(form: FormData, key: string): string | undefined {
  const value = form.get(key);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function numberOrRaw(form: FormData, key: string): number | string | undefined {
  const value = text(form, key);
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}

function list(value: string | undefined): string[] | undefined {
  return value
    ?.split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function agentFromForm(form: FormData): { value: Record<string, unknown>; scriptError?: string } {
  let script: unknown;
  let scriptError: string | undefined;
  const scriptText = text(form, "script");
  if (scriptText) {
    try {
      if (jsonDepthExceeds(scriptText)) throw new Error(`nested deeper than ${MAX_JSON_DEPTH} levels`);
      script = JSON.parse(scriptText);
    } catch (error) {
      scriptError = `script is not valid JSON: ${(error as Error).message}`;
    }
  }
  const tools = [...form.getAll("tools").map(String), ...(list(text(form, "extraTools")) ?? [])];
  return {
    value: {
      name: text(form, "name"),
      description: text(form, "description"),
      model: text(form, "model"),
      instructions: text(form, "instructions"),
      tools: [...new Set(tools)],
      maxTurns: numberOrRaw(form, "maxTurns"),
      timeoutMs: numberOrRaw(form, "timeoutMs"),
      budgetUsd: numberOrRaw(form, "budgetUsd"),
      dailyBudgetUsd: numberOrRaw(form, "dailyBudgetUsd"),
      dailyBudgetPerPersonUsd: numberOrRaw(form, "dailyBudgetPerPersonUsd"),
      failMode: text(form, "failMode"),
      metadataFile: text(form, "metadataFile"),
      flow: list(text(form, "flow")),
      codeHooks: list(text(form, "codeHooks")),
      retryTools: list(text(form, "retryTools")),
      retentionDays: numberOrRaw(form, "retentionDays"),
      script,
    },
    scriptError,
  };
}
