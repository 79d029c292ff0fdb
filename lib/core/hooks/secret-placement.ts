/**
 * Where a secret may go. A `${secret:NAME}` reference stands only in fields that carry a credential
 * to the request's own destination: a webhook header value or the userinfo of its URL, and the
 * headers or URL userinfo of a `tool` hook calling `http_request` (a Slack or Discord token is named
 * by `tokenSecret`). Anywhere else — a tool's input, a file, a memory note, a message, a command
 * line, a channel — the value would land in text that is stored, shown or passed on, so the hook is
 * refused: at save with the field's path, and again when a stored hook is compiled to run.
 *
 * When the hook fires, every secret it resolved must list the destination host among its own
 * hosts, or nothing is sent.
 */
import { hostMatches, normalizeHost } from "@/lib/core/outbound/host-patterns";
import { splitUserinfo, staticUrlIssue } from "./outbound-url";
import type { SecretValue } from "./ports";
import type { HookAction } from "./hook-actions";
import { secretReferences } from "./template";

export interface EgressIssue {
  /** Relative to the action: `["url"]`, `["args", "content"]`. */
  path: (string | number)[];
  message: string;
}

const WHERE_SECRETS_GO =
  "a secret may only stand in a webhook header or the userinfo of its URL (https://user:${secret:NAME}@host/), or in the headers of a tool hook calling http_request";

/** Every misplaced secret reference and every URL that is not http(s), with the field's path. */
export function egressIssues(action: HookAction): EgressIssue[] {
  const issues: EgressIssue[] = [];
  const credentialFields = credentialFieldsOf(action);
  walkStrings(action, [], (text, path) => {
    const refs = secretReferences(text);
    if (refs.length === 0) return;
    const key = path.join("\u0000");
    const field = credentialFields.get(key);
    if (field === "header") return;
    if (field === "url") {
      const { userinfoStart, userinfoEnd } = splitUserinfo(text);
      if (refs.every((r) => r.start >= userinfoStart && r.end <= userinfoEnd)) return;
      issues.push({ path, message: `\${secret:${refs[0].name}} in the URL outside its userinfo: ${WHERE_SECRETS_GO}` });
      return;
    }
    issues.push({ path, message: `\${secret:${refs[0].name}} cannot be used here: ${WHERE_SECRETS_GO}` });
  });
  for (const urlPath of urlFieldsOf(action)) {
    const value = readAt(action, urlPath);
    if (typeof value !== "string") continue;
    const problem = staticUrlIssue(value);
    if (problem) issues.push({ path: urlPath, message: problem });
  }
  return issues;
}

/** Undefined when every secret may be sent to `host`; otherwise why not (and nothing is sent). */
export function secretsNotAllowedFor(host: string, secrets: ReadonlyMap<string, SecretValue>): string | undefined {
  const target = normalizeHost(host);
  for (const [name, secret] of secrets) {
    // A bare `*` would undo the binding: a secret's hosts are names or `*.suffix` patterns only.
    if (!secret.hosts.some((pattern) => pattern.trim() !== "*" && hostMatches(target, pattern))) {
      return `secret ${name} may not be sent to ${target}: its hosts, set by an admin with the secret, do not include it`;
    }
  }
  return undefined;
}

type CredentialField = "header" | "url";

function credentialFieldsOf(action: HookAction): Map<string, CredentialField> {
  const fields = new Map<string, CredentialField>();
  const add = (path: string[], kind: CredentialField) => fields.set(path.join("\u0000"), kind);
  if (action.type === "webhook") {
    add(["url"], "url");
    for (const name of Object.keys(action.headers ?? {})) add(["headers", name], "header");
  } else if (action.type === "tool" && action.tool === "http_request") {
    add(["args", "url"], "url");
    const headers = action.args?.headers;
    if (headers && typeof headers === "object" && !Array.isArray(headers)) {
      for (const name of Object.keys(headers)) add(["args", "headers", name], "header");
    }
  }
  return fields;
}

/** Outbound URLs saved in the hook (the http_request tool checks its own URL when it runs). */
function urlFieldsOf(action: HookAction): string[][] {
  return action.type === "webhook" ? [["url"]] : [];
}

function walkStrings(value: unknown, path: (string | number)[], visit: (text: string, path: (string | number)[]) => void) {
  if (typeof value === "string") visit(value, path);
  else if (Array.isArray(value)) value.forEach((item, i) => walkStrings(item, [...path, i], visit));
  else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) walkStrings(item, [...path, key], visit);
  }
}

function readAt(value: unknown, path: string[]): unknown {
  let at = value;
  for (const key of path) at = at && typeof at === "object" ? (at as Record<string, unknown>)[key] : undefined;
  return at;
}
