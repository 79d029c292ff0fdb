/**
 * The hook editor's form state and its way to a spec. Every field is kept as the text the person
 * typed, so a half-typed number or JSON object is never lost; `draftToInput` turns it into what
 * `parseHookSpec` validates, and `draftIssues` is that validation keyed by zod path, exactly as the
 * server reports it.
 */
import { issuePath } from "@/lib/core/issues";
import type { EventName } from "@/lib/core/hooks/events";
import { CONFIDENCES, DETECTOR_NAMES } from "@/lib/core/detectors/detector-names";
import { DETECT_VERDICTS, parseHookSpec, type HookActionType, type HookDialect, type HookSpec } from "@/lib/core/hooks/spec";

export interface HookDraft {
  id: string;
  name: string;
  event: EventName | string;
  scope: string;
  enabled: boolean;
  mode: "enforce" | "shadow";
  /** A person's allow rule marked (by an admin) as winning over broader denies. */
  exception: boolean;
  matcher: string;
  when: string;
  onOutcomes: string[];
  timeoutMs: string;
  onFailure: "" | "block" | "continue";
  /** The framework whose runtime contract an imported hook keeps; read-only in the editor, kept on save. */
  dialect: HookDialect | "";
  actionType: HookActionType;
  /** Action fields by name; shared names (message, timeoutMs) keep their text across type changes. */
  action: Record<string, string>;
}

type FieldKind = "text" | "textarea" | "number" | "select" | "json" | "list";

export interface ActionFieldDef {
  name: string;
  label: string;
  kind: FieldKind;
  options?: readonly string[];
  hint?: string;
  placeholder?: string;
  /** Where in the action the value goes when it is nested (`approvers.users`); default its name. */
  path?: readonly string[];
  /**
   * Shown only when it holds a value (or a problem): a second way to say what another field
   * already says (approve's tool globs beside the hook's matcher), kept for hooks that use it.
   */
  onlyWhenSet?: boolean;
}

/** The action fields the editor draws for `type`: every one, less those only shown when set and empty. */
export function visibleActionFields(type: HookActionType, values: Record<string, string>, errors: Record<string, string> = {}): ActionFieldDef[] {
  return ACTION_FIELDS[type].filter((f) => !f.onlyWhenSet || (values[f.name] ?? "").trim() !== "" || issueFor(errors, `action.${actionFieldPath(f)}`) !== undefined);
}

/**
 * Whether the hook's own timeout is drawn: an approve hook waits for a person ("Wait for a
 * decision", its action's timeout), and a second timeout beside it only confuses; one already set
 * (or refused) stays visible so it can be read and cleared.
 */
export function showsHookTimeout(draft: Pick<HookDraft, "actionType" | "timeoutMs">, errors: Record<string, string> = {}): boolean {
  return draft.actionType !== "approve" || draft.timeoutMs.trim() !== "" || errors.timeoutMs !== undefined;
}

/** The field's path in the action, as issues name it (`approvers.users`). */
export function actionFieldPath(field: ActionFieldDef): string {
  return field.path?.join(".") ?? field.name;
}

const actionTimeout = (hint: string): ActionFieldDef => ({ name: "timeoutMs", label: "Action timeout (ms)", kind: "number", hint, placeholder: "default" });
const notifyFields: ActionFieldDef[] = [
  { name: "channel", label: "Channel", kind: "text", placeholder: "C0123456789" },
  { name: "tokenSecret", label: "Token secret", kind: "text", hint: "Name of the secret holding the bot token.", placeholder: "SLACK_BOT_TOKEN" },
  actionTimeout("Empty uses the hook timeout or the action's default."),
];

/** The fields of each action type, in hook-model.md's order. */
export const ACTION_FIELDS: Record<HookActionType, ActionFieldDef[]> = {
  block: [
    { name: "reason", label: "Reason", kind: "text", hint: "What the model is told; default \"Blocked by hook\"." },
    { name: "denyIf", label: "Deny if (regex)", kind: "text", hint: "RE2 regex over the JSON of the tool input; empty (and no detectors) blocks every matched call.", placeholder: "/srv/prod" },
    {
      name: "denyIfDetects",
      path: ["denyIf", "detects"],
      label: "Deny if detectors find",
      kind: "list",
      hint: `Instead of a regex: comma-separated detectors (${DETECTOR_NAMES.join(", ")}); the block applies when one finds something in the call.`,
      placeholder: "secrets, pii",
    },
    { name: "denyIfConfidence", path: ["denyIf", "minConfidence"], label: "Detectors' least confidence", kind: "select", options: CONFIDENCES, onlyWhenSet: true },
  ],
  approve: [
    { name: "timeoutMs", label: "Wait for a decision (ms)", kind: "number", hint: "Default 1800000 (30 minutes).", placeholder: "1800000" },
    { name: "onTimeout", label: "On timeout", kind: "select", options: ["deny", "allow", "wait"] },
    {
      name: "tools",
      label: "Tools (globs)",
      kind: "list",
      hint: "Comma-separated; * and ? wildcards, within what the matcher selects. Prefer the matcher.",
      placeholder: "shell, write_*",
      onlyWhenSet: true,
    },
    { name: "message", label: "Message", kind: "text", hint: "Shown to the person deciding." },
    {
      name: "approverUsers",
      path: ["approvers", "users"],
      label: "Approvers: people",
      kind: "list",
      hint: "Comma-separated emails (or usernames, the part before @). Only the people and roles named here decide; empty: any operator.",
      placeholder: "alice@example.com, bob",
    },
    { name: "approverRoles", path: ["approvers", "roles"], label: "Approvers: roles", kind: "list", hint: "Comma-separated: admin, operator, viewer.", placeholder: "admin" },
  ],
  allow: [
    { name: "input", label: "Only this input (JSON)", kind: "json", hint: "The exact tool input this rule lets through (key order aside); empty allows every matched call." },
    { name: "reason", label: "Reason", kind: "text", hint: "Recorded in the ledger." },
  ],
  context: [{ name: "text", label: "Text", kind: "textarea", hint: "Injected for the model as a system reminder." }],
  tool: [
    { name: "tool", label: "Tool", kind: "text", placeholder: "memory" },
    { name: "args", label: "Arguments (JSON)", kind: "json", hint: "An object; {{template}} values are filled from the event.", placeholder: '{"action": "read", "file": "ctx.md"}' },
    { name: "skipIf", label: "Skip if (regex)", kind: "text", hint: "RE2 regex over the tool output; a match skips the remaining hooks." },
    { name: "denyIf", label: "Deny if (regex)", kind: "text", hint: "RE2 regex over the tool output; a match refuses, with the output as the reason (Tailored AI)." },
    {
      name: "denyIfDetects",
      path: ["denyIf", "detects"],
      label: "Deny if detectors find (in the output)",
      kind: "list",
      hint: "Instead of a regex: comma-separated text detectors (secrets, pii, injection); a finding in the tool's output refuses.",
      onlyWhenSet: true,
    },
    { name: "denyIfConfidence", path: ["denyIf", "minConfidence"], label: "Detectors' least confidence", kind: "select", options: CONFIDENCES, onlyWhenSet: true },
    actionTimeout("Empty uses the hook timeout."),
  ],
  command: [
    { name: "command", label: "Command", kind: "textarea", hint: "Runs in a shell with the event JSON on stdin; exit 2 blocks with stderr as the reason." },
    { name: "secrets", label: "Secrets", kind: "list", hint: "Comma-separated secret names, exposed as environment variables.", placeholder: "GITHUB_TOKEN" },
    actionTimeout("Default 5000."),
  ],
  webhook: [
    { name: "url", label: "URL", kind: "text", hint: "https (or http to a host on the admin's allow-list). Secrets only in headers or user:${secret:NAME}@ in the URL.", placeholder: "https://hooks.example.com/agent" },
    { name: "method", label: "Method", kind: "select", options: ["POST", "PUT"] },
    { name: "headers", label: "Headers (JSON)", kind: "json", hint: "An object of strings; ${secret:NAME} is substituted.", placeholder: '{"Authorization": "Bearer ${secret:HOOK_TOKEN}"}' },
    actionTimeout("Empty uses the hook timeout or the action's default."),
  ],
  slack: notifyFields,
  discord: notifyFields,
  log: [{ name: "message", label: "Message", kind: "text", hint: "Optional; {{template}} values are filled from the event." }],
  save_json: [{ name: "path", label: "Path", kind: "text", hint: "Inside the agent's workspace.", placeholder: "hook-context.json" }],
  code: [
    { name: "module", label: "Module", kind: "text", hint: "The id of a defineHook module in the operator's hooks folder." },
    actionTimeout("Empty uses the hook timeout."),
  ],
  limit: [
    { name: "max", label: "At most (calls)", kind: "number", placeholder: "60" },
    { name: "windowMs", label: "In any window of (ms)", kind: "number", hint: "Sliding: the calls let through in the last this many ms (60000 is a minute). Refused calls do not count.", placeholder: "60000" },
    { name: "per", label: "Counted per", kind: "select", options: ["actor", "session", "agent"], hint: "actor: a person's calls across all their sessions and subagents; session: one session's; agent: everyone's." },
    { name: "reason", label: "Reason", kind: "text", hint: "What the agent is told past the limit; the count is added." },
  ],
  modify: [
    { name: "input", label: "Input patch (JSON, tool.pre)", kind: "json", hint: "A JSON merge patch on the tool input: keys set, null removes one.", placeholder: '{"command": "npm test -- --ci"}' },
    { name: "output", label: "Replacement output (tool.post)", kind: "textarea", hint: "What the model sees instead of the tool's output." },
    { name: "redact", label: "Redact patterns (JSON list, tool.post)", kind: "json", hint: "RE2 regexes; each match in the output is replaced.", placeholder: '["sk-[A-Za-z0-9]{20,}"]' },
    { name: "replacement", label: "Replacement", kind: "text", placeholder: "[REDACTED]" },
    { name: "reason", label: "Reason", kind: "text", hint: "Recorded in the ledger." },
  ],
  ask: [{ name: "reason", label: "Reason", kind: "text", hint: "What the agent's user is told when asked to confirm." }],
  detect: [
    { name: "detectors", label: "Detectors", kind: "list", hint: `Comma-separated: ${DETECTOR_NAMES.join(", ")} (docs/detectors.md says what each finds).`, placeholder: "shell.destructive" },
    { name: "verdict", label: "On a finding", kind: "select", options: DETECT_VERDICTS, hint: "tool.pre: block the call or have the agent ask its user; tool.post: redact it from the output; anywhere: only record it in the ledger." },
    { name: "minConfidence", label: "Least confidence", kind: "select", options: CONFIDENCES, hint: "medium also acts on what can only be known when the command runs ($DIR); low also on shapes look-alikes share (nine bare digits, a national phone layout): best with record." },
    { name: "hosts", label: "Hosts a session may reach (session rules)", kind: "list", hint: "Comma-separated; after the session read a secret file, any other host is refused. A host covers its subdomains.", placeholder: "github.com, registry.npmjs.org", onlyWhenSet: true },
    { name: "deletesPerMinute", label: "Deletes a minute (session rules)", kind: "number", hint: "Default 20.", placeholder: "20", onlyWhenSet: true },
    { name: "reason", label: "Reason", kind: "text", hint: "Said before the findings in what the agent is told." },
  ],
};

const TOP_LEVEL_FIELDS = ["id", "name", "event", "scope", "enabled", "mode", "exception", "matcher", "when", "onOutcomes", "timeoutMs", "onFailure", "dialect"];

function fieldText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) return value.join(", ");
  if (typeof value === "object") return JSON.stringify(value, null, 2);
  return String(value);
}

export function draftFromSpec(spec: Partial<HookSpec> | undefined, defaults: { scope?: string; event?: string } = {}): HookDraft {
  const action: Record<string, string> = {};
  const nested = spec?.action ? ACTION_FIELDS[spec.action.type].filter((f) => f.path) : [];
  const nestedRoots = new Set(nested.map((f) => f.path![0]));
  // A nested root holding text (denyIf as a regex, beside denyIf's detectors) is its own field's.
  for (const [key, value] of Object.entries(spec?.action ?? {})) if (key !== "type" && !(nestedRoots.has(key) && typeof value === "object")) action[key] = fieldText(value);
  for (const field of nested) {
    let value: unknown = spec?.action;
    for (const key of field.path!) value = (value as Record<string, unknown> | undefined)?.[key];
    action[field.name] = fieldText(value);
  }
  return {
    id: spec?.id ?? "",
    name: spec?.name ?? "",
    event: spec?.event ?? defaults.event ?? "tool.pre",
    scope: spec?.scope ?? defaults.scope ?? "global",
    enabled: spec?.enabled ?? true,
    mode: spec?.mode ?? "enforce",
    exception: spec?.exception ?? false,
    matcher: spec?.matcher ?? "",
    when: spec?.when ?? "",
    onOutcomes: spec?.onOutcomes ?? [],
    timeoutMs: fieldText(spec?.timeoutMs),
    onFailure: spec?.onFailure ?? "",
    dialect: spec?.dialect ?? "",
    actionType: spec?.action?.type ?? "block",
    action,
  };
}

const blankToUndefined = (text: string) => (text.trim() === "" ? undefined : text.trim());

/** A number when the text is one; otherwise the text, so the schema names the field and the problem. */
function numberOrText(text: string): number | string | undefined {
  const value = blankToUndefined(text);
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}

export interface DraftIssue {
  path: string;
  message: string;
}

/** The spec input the draft stands for, plus the fields whose JSON does not parse. */
export function draftToInput(draft: HookDraft): { input: Record<string, unknown>; jsonIssues: DraftIssue[] } {
  const jsonIssues: DraftIssue[] = [];
  const action: Record<string, unknown> = { type: draft.actionType };
  const place = (field: ActionFieldDef, value: unknown) => {
    if (!field.path) return void (action[field.name] = value);
    if (value === undefined) return;
    let target = action;
    for (const key of field.path.slice(0, -1)) {
      if (target[key] !== undefined && (typeof target[key] !== "object" || target[key] === null)) {
        // denyIf is a regex or detectors: both given, the person chooses.
        return void jsonIssues.push({ path: `action.${key}`, message: `${key} is a regex or detectors, not both: clear one` });
      }
      target = (target[key] ??= {}) as Record<string, unknown>;
    }
    target[field.path.at(-1)!] = value;
  };
  for (const field of ACTION_FIELDS[draft.actionType]) {
    const text = draft.action[field.name] ?? "";
    if (field.kind === "number") place(field, numberOrText(text));
    else if (field.kind === "list") {
      const items = text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
      place(field, items.length ? items : undefined);
    } else if (field.kind === "json") {
      if (text.trim() === "") continue;
      try {
        place(field, JSON.parse(text));
      } catch (error) {
        jsonIssues.push({ path: `action.${actionFieldPath(field)}`, message: `not valid JSON: ${(error as Error).message}` });
      }
    } else if (field.kind === "textarea") place(field, text.trim() === "" ? undefined : text);
    else place(field, blankToUndefined(text));
  }
  const input: Record<string, unknown> = {
    id: blankToUndefined(draft.id) ?? "",
    name: blankToUndefined(draft.name),
    event: draft.event,
    scope: draft.scope,
    enabled: draft.enabled,
    mode: draft.mode,
    exception: draft.exception || undefined,
    matcher: blankToUndefined(draft.matcher),
    when: blankToUndefined(draft.when),
    // Outcomes filter session.end only; kept out elsewhere so switching events does not fail.
    onOutcomes: draft.event === "session.end" && draft.onOutcomes.length ? draft.onOutcomes : undefined,
    action,
    timeoutMs: numberOrText(draft.timeoutMs),
    onFailure: draft.onFailure || undefined,
    dialect: draft.dialect || undefined,
  };
  for (const key of Object.keys(input)) if (input[key] === undefined) delete input[key];
  for (const key of Object.keys(action)) if (action[key] === undefined) delete action[key];
  return { input, jsonIssues };
}

/** Every problem of the draft by zod path (`action.denyIf`), first message per path. */
export function draftIssues(draft: HookDraft): Record<string, string> {
  const { input, jsonIssues } = draftToInput(draft);
  const issues: Record<string, string> = {};
  for (const issue of jsonIssues) issues[issue.path] = issue.message;
  const parsed = parseHookSpec(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) issues[issuePath(issue.path)] ??= issue.message;
  }
  return issues;
}

/** The message for a field, including issues on its items (`action.tools[0]`). */
export function issueFor(issues: Record<string, string>, path: string): string | undefined {
  if (issues[path]) return issues[path];
  const nested = Object.keys(issues).find((p) => p.startsWith(`${path}[`) || p.startsWith(`${path}.`));
  return nested ? `${nested.slice(path.length).replace(/^\./, "")}: ${issues[nested]}` : undefined;
}

/** Issues that no field of the form shows (so the editor can list them at the top). */
export function unplacedIssues(issues: Record<string, string>, actionType: HookActionType): DraftIssue[] {
  const placed = [...TOP_LEVEL_FIELDS, "action.type", ...ACTION_FIELDS[actionType].map((f) => `action.${actionFieldPath(f)}`)];
  return Object.entries(issues)
    .filter(([path]) => !placed.some((p) => path === p || path.startsWith(`${p}[`) || path.startsWith(`${p}.`)))
    .map(([path, message]) => ({ path, message }));
}
