/**
 * `session`: conditions over what the session did before the call being decided, read from its
 * recorded tool calls. After it read a file that holds secrets (`.env`, SSH and cloud keys,
 * `.npmrc`, …), a call that reaches the network (curl, wget, scp, ssh, nc, git push to a URL, a
 * fetch tool) to a host not on the hook's list; more deletes in a minute than the hook allows.
 * Calls are read as the shell detectors read them (parsed commands, wrappers seen through).
 */
import type { PastCall } from "@/lib/core/hooks/ports";
import { shellCommandOf } from "../shell/shell-command-of";
import { MAX_PARSED_CHARS } from "../shell/destructive-shell";
import { baseName, parseShell, unwrapCommand, type ParsedShell, type ShellCommand } from "../shell/shell-script";
import type { Detector, DetectorContext, Finding } from "../types";

export const SESSION = "session";

/** How far back a session rule looks, and how many calls at most. */
export const SESSION_WINDOW_MS = 60 * 60 * 1000;
export const SESSION_CALLS = 200;
export const DEFAULT_DELETES_PER_MINUTE = 20;

/** Files that hold secrets by what they are. */
const SECRET_FILE = /(^|\/)(\.env(\.[\w.-]+)?|\.npmrc|\.pypirc|\.netrc|\.pgpass|\.git-credentials|credentials(\.json)?|id_(rsa|dsa|ecdsa|ed25519)|[\w.-]+\.(pem|key|p12|pfx|kdbx)|secrets?\.(json|ya?ml|toml)|\.aws\/(credentials|config)|\.kube\/config|\.docker\/config\.json|service-account[\w.-]*\.json)$/i;
/** Tools that read a file by a path field. */
const READ_TOOLS = /^(read|read_file|view|open|cat|readfile|read_many_files|str_replace_editor|notebookread)$/i;
/** Tools that fetch a URL. */
const FETCH_TOOLS = /^(webfetch|web_fetch|fetch|http_request|http|browser|curl|request)$/i;
/** Programs that read the files they are given. */
const FILE_READERS = new Set(["cat", "less", "more", "head", "tail", "grep", "rg", "awk", "sed", "cut", "sort", "base64", "xxd", "od", "strings", "cp", "source", ".", "tar", "zip", "jq", "yq"]);
const NETWORK = new Set(["curl", "wget", "http", "https", "nc", "ncat", "netcat", "socat", "telnet", "scp", "sftp", "ssh", "rsync", "ftp", "aria2c"]);
const DELETERS = new Set(["rm", "unlink", "rmdir", "shred"]);
const DELETE_TOOLS = /^(delete|delete_file|remove|remove_file|rm)$/i;

const pathFields = (input: unknown): string[] => {
  if (input === null || typeof input !== "object") return [];
  const record = input as Record<string, unknown>;
  return ["file_path", "path", "filePath", "file", "absolute_path", "notebook_path", "paths"].flatMap((k) => {
    const v = record[k];
    return typeof v === "string" ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  });
};

function commandsOf(call: { toolName: string; toolInput: unknown }, parsed?: Map<string, ParsedShell | undefined>): ShellCommand[] {
  const command = shellCommandOf(call.toolInput);
  if (command === undefined || command.length > MAX_PARSED_CHARS) return [];
  return parseShell(command, Infinity, parsed)?.commands ?? [];
}

/** The secret file a call read, if it read one. */
function secretRead(call: PastCall): string | undefined {
  if (READ_TOOLS.test(call.toolName)) return pathFields(call.toolInput).find((p) => SECRET_FILE.test(p));
  for (const command of commandsOf(call)) {
    const argv = unwrapCommand(command.argv);
    if (argv.length > 0 && FILE_READERS.has(baseName(argv[0].text))) {
      const file = argv.slice(1).find((w) => SECRET_FILE.test(w.text));
      if (file) return file.text;
    }
  }
  return undefined;
}

/** The hosts a call reaches over the network (a URL's, `user@host:`, `ssh host`). */
function hostsReached(call: { toolName: string; toolInput: unknown }, parsed?: Map<string, ParsedShell | undefined>): string[] {
  const hostOf = (text: string): string | undefined => {
    const url = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/\s]+@)?([^/:\s?#]+)/i.exec(text);
    if (url) return url[1].toLowerCase();
    const scp = /^(?:[^@\s/]+@)?([A-Za-z0-9.-]+\.[A-Za-z]{2,}|\d+\.\d+\.\d+\.\d+):/.exec(text);
    return scp ? scp[1].toLowerCase() : undefined;
  };
  if (FETCH_TOOLS.test(call.toolName)) {
    const url = (call.toolInput as Record<string, unknown> | null)?.url;
    const host = typeof url === "string" ? hostOf(url) : undefined;
    return host ? [host] : [];
  }
  const hosts: string[] = [];
  for (const command of commandsOf(call, parsed)) {
    const argv = unwrapCommand(command.argv);
    if (argv.length === 0) continue;
    const name = baseName(argv[0].text);
    const git = name === "git" && argv.some((w) => w.text === "push" || w.text === "remote");
    if (!NETWORK.has(name) && !git) continue;
    for (const word of argv.slice(1)) {
      const host = hostOf(word.text) ?? ((name === "ssh" || name === "nc" || name === "ncat" || name === "telnet") && /^[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/.test(word.text) ? word.text.toLowerCase() : undefined);
      if (host) hosts.push(host);
    }
  }
  return hosts;
}

function deletesIn(call: { toolName: string; toolInput: unknown }, parsed?: Map<string, ParsedShell | undefined>): number {
  if (DELETE_TOOLS.test(call.toolName)) return Math.max(1, pathFields(call.toolInput).length);
  let count = 0;
  for (const command of commandsOf(call, parsed)) {
    const argv = unwrapCommand(command.argv);
    if (argv.length === 0) continue;
    const name = baseName(argv[0].text);
    if (DELETERS.has(name)) count += Math.max(1, argv.slice(1).filter((w) => !w.text.startsWith("-")).length);
    else if (name === "find" && argv.some((w) => w.text === "-delete")) count++;
    else if (name === "git" && argv[1]?.text === "rm") count += Math.max(1, argv.slice(2).filter((w) => !w.text.startsWith("-")).length);
  }
  return count;
}

const allowed = (host: string, hosts: readonly string[]) => hosts.some((h) => host === h.toLowerCase() || host.endsWith(`.${h.toLowerCase()}`));

export const sessionRules = {
  name: SESSION,
  version: 1,
  async: false,
  reads: "session" as const,
  rules: [
    { rule: "secret-read-then-egress", finds: "a call that reaches a host not on the hook's `hosts` after the session read a file that holds secrets (.env, SSH and cloud keys, .npmrc, .netrc, *.pem, …) in the last hour" },
    { rule: "delete-burst", finds: "more files deleted in the last minute (rm, unlink, find -delete, git rm, a delete tool) than the hook's `deletesPerMinute` (default 20), this call's included" },
  ],
  detect(_text: string, context: DetectorContext): Finding[] {
    const call = context.call;
    if (!call) return [];
    const history = context.history ?? [];
    const findings: Finding[] = [];
    const reached = hostsReached(call, context.parsed).filter((host) => !allowed(host, context.hosts ?? []));
    if (reached.length > 0) {
      for (const past of history) {
        const file = secretRead(past);
        if (file === undefined) continue;
        findings.push({
          detector: SESSION,
          rule: "secret-read-then-egress",
          confidence: "high",
          reason: `this call reaches ${reached.join(", ")} (not on the hook's hosts) after the session read ${file} (${past.toolName}, ${new Date(past.ts).toISOString()})`,
        });
        break;
      }
    }
    const now = context.now ?? Date.now();
    const limit = context.deletesPerMinute ?? DEFAULT_DELETES_PER_MINUTE;
    const current = deletesIn(call, context.parsed);
    if (current > 0) {
      const recent = history.filter((past) => past.ts > now - 60_000).reduce((sum, past) => sum + deletesIn(past), 0);
      if (recent + current > limit) {
        findings.push({ detector: SESSION, rule: "delete-burst", confidence: "high", reason: `${recent + current} files deleted in the last minute with this call, over the ${limit} allowed` });
      }
    }
    return findings;
  },
} satisfies Detector;
