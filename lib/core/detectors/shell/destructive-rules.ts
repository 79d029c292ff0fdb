/**
 * The rules of the destructive-shell detector, each over one parsed simple command (its wrappers
 * `sudo`, `env`, `xargs`… taken off). A rule returns its findings' reasons; the detector adds the
 * command's text, so every reason names the part of the command it is about.
 */
import type { Confidence, DetectorRule } from "../types";
import { outsideWorkspace } from "./shell-paths";
import { inlineCodeOf, recursiveDeletesInCode } from "./interpreter-code";
import { baseName, FETCHERS, unwrapCommand, type ShellCommand, type ShellWord } from "./shell-script";

export interface RuleHit {
  rule: string;
  confidence: Confidence;
  reason: string;
}

export const DESTRUCTIVE_SHELL_RULES: readonly DetectorRule[] = [
  { rule: "recursive-delete-outside-workspace", finds: "rm -r/-R/--recursive, find … -delete or -exec rm, rmdir -p, shred -u, or inline code's shutil.rmtree / FileUtils.rm_rf / fs.rmSync, on a path outside the workspace: the home folder, the system, above the workspace, `.*`, or `$DIR/…` with DIR empty" },
  { rule: "force-push-protected", finds: "git push --force / -f / --force-with-lease / +refspec / --mirror / --delete to main, master, trunk, develop, production, prod, release/*, or forced with no branch named" },
  { rule: "history-rewrite", finds: "git filter-branch, git filter-repo, bfg: rewriting a repository's history" },
  { rule: "download-and-run", finds: "a download piped into a shell or interpreter (curl … | sh), or run from a substitution (bash <(curl …), sh -c \"$(wget …)\", eval \"$(curl …)\")" },
  { rule: "world-writable-recursive", finds: "chmod -R 777 / a+rwx / o+w: a tree made writable by everyone" },
  { rule: "block-device-write", finds: "dd of=/dev/sd…, a redirect into a disk device, mkfs, wipefs, fdisk/sfdisk/parted/sgdisk, blkdiscard, shred on a device" },
  { rule: "database-drop", finds: "DROP DATABASE/TABLE/SCHEMA, TRUNCATE, DELETE FROM without WHERE, FLUSHALL, dropDatabase() sent through psql, mysql, mariadb, sqlite3, duckdb, mongosh, redis-cli, clickhouse, cockroach, sqlcmd (option, stdin, here-document), and dropdb" },
  { rule: "agent-settings-write", finds: "writing, moving over or deleting a coding agent's hook settings (.claude/settings*.json, .codex/config.toml or hooks.json, .gemini/settings.json, .github/hooks/, .cursor/hooks.json, .qwen/settings.json, .factory/, managed settings) or Hookplane's own CLI config, or `hookplane logout`" },
];

export type Rule = (argv: ShellWord[], command: ShellCommand, cwd: string | undefined) => RuleHit[];

const hit = (rule: string, confidence: Confidence, reason: string): RuleHit => ({ rule, confidence, reason });

/** Short options may be bundled (`-rf`); long ones stand alone. */
function hasFlag(args: ShellWord[], short: string, long: string[]): boolean {
  for (const arg of args) {
    const t = arg.text;
    if (t === "--") return false;
    if (long.includes(t)) return true;
    if (/^-[A-Za-z]+$/.test(t) && t.includes(short)) return true;
  }
  return false;
}

/** The words after the options (everything after `--`). */
function operands(args: ShellWord[]): ShellWord[] {
  const out: ShellWord[] = [];
  let ended = false;
  for (const arg of args) {
    if (!ended && arg.text === "--") ended = true;
    else if (ended || !arg.text.startsWith("-") || arg.text === "-") out.push(arg);
  }
  return out;
}

function deletesOutside(what: string, targets: ShellWord[], cwd: string | undefined, options: { workspaceRootIsInside?: boolean } = {}): RuleHit[] {
  return targets.flatMap((target) => {
    const verdict = outsideWorkspace(target, cwd);
    if (!verdict || (options.workspaceRootIsInside && verdict.whole)) return [];
    return [hit("recursive-delete-outside-workspace", verdict.confidence, `${what}: ${verdict.why}`)];
  });
}

const recursiveDelete: Rule = (argv, _command, cwd) => {
  const name = baseName(argv[0].text);
  const args = argv.slice(1);
  if (name === "rm" && (hasFlag(args, "r", ["--recursive"]) || hasFlag(args, "R", []))) return deletesOutside("rm deletes recursively", operands(args), cwd);
  if (name === "shred" && hasFlag(args, "u", ["--remove"])) return deletesOutside("shred overwrites and removes", operands(args), cwd);
  if (name === "rmdir" && hasFlag(args, "p", ["--parents"])) return deletesOutside("rmdir removes parent folders", operands(args), cwd);
  const inline = inlineCodeOf(argv);
  if (inline) {
    const targets = recursiveDeletesInCode(inline.code).map((text) => ({ text, literal: true, fetches: false }));
    return deletesOutside(`${inline.interpreter} deletes recursively`, targets, cwd);
  }
  if (name === "find") {
    const exprAt = args.findIndex((a) => /^[-(!]/.test(a.text));
    const starts = exprAt < 0 ? args : args.slice(0, exprAt);
    const expr = exprAt < 0 ? [] : args.slice(exprAt);
    const execAt = expr.findIndex((a) => ["-exec", "-execdir", "-ok", "-okdir"].includes(a.text));
    const execs = execAt >= 0 && ["rm", "shred", "unlink", "rmdir"].includes(baseName(expr[execAt + 1]?.text ?? ""));
    if (!expr.some((a) => a.text === "-delete") && !execs) return [];
    // A find that deletes what it matches under the workspace is routine (`find . -name '*.pyc' -delete`).
    return deletesOutside("find deletes what it finds", starts.length > 0 ? starts : [{ text: ".", literal: true, fetches: false }], cwd, { workspaceRootIsInside: true });
  }
  return [];
};

const PROTECTED_BRANCH = /^(refs\/heads\/)?(main|master|trunk|develop|development|production|prod|stable|release([/-].*)?)$/;
/** git's global options that take a value (`git -C dir push`). */
const GIT_VALUE_OPTIONS = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"]);

function gitSubcommand(args: ShellWord[]): { sub: string; rest: ShellWord[] } | undefined {
  let i = 0;
  while (i < args.length && args[i].text.startsWith("-")) i += GIT_VALUE_OPTIONS.has(args[i].text) ? 2 : 1;
  return i < args.length ? { sub: args[i].text, rest: args.slice(i + 1) } : undefined;
}

/** What a git subcommand throws away that was never committed (or merged): undefined when nothing. */
function discardsWork(sub: string, rest: ShellWord[]): { confidence: Confidence; why: string } | undefined {
  const has = (re: RegExp) => rest.some((a) => re.test(a.text));
  switch (sub) {
    case "reset":
      return has(/^--hard$/) ? { confidence: "high", why: "git reset --hard throws away uncommitted changes" } : undefined;
    case "clean":
      return has(/^(-[a-zA-Z]*f[a-zA-Z]*|--force)$/) && !has(/^(-[a-zA-Z]*n[a-zA-Z]*|--dry-run)$/) ? { confidence: "high", why: "git clean -f deletes untracked files" } : undefined;
    case "checkout":
      return has(/^--$/) || (rest.length === 1 && rest[0].text === ".") ? { confidence: "medium", why: "git checkout -- <paths> throws away their uncommitted changes" } : undefined;
    case "restore":
      return !has(/^(--staged|-S)$/) || has(/^(--worktree|-W)$/) ? { confidence: "medium", why: "git restore throws away uncommitted changes in the working tree" } : undefined;
    case "stash":
      return rest[0] && (rest[0].text === "drop" || rest[0].text === "clear") ? { confidence: "medium", why: `git stash ${rest[0].text} deletes stashed work` } : undefined;
    case "branch":
      return has(/^(-D|--delete --force)$/) || (has(/^(-d|--delete)$/) && has(/^(-f|--force)$/)) ? { confidence: "medium", why: "git branch -D deletes a branch whether or not it was merged" } : undefined;
    default:
      return undefined;
  }
}

const gitRules: Rule = (argv) => {
  const name = baseName(argv[0].text);
  if (name === "bfg" || name === "git-filter-repo") return [hit("history-rewrite", "high", `${name} rewrites the repository's history`)];
  if (name !== "git") return [];
  const command = gitSubcommand(argv.slice(1));
  if (!command) return [];
  if (command.sub === "filter-branch" || command.sub === "filter-repo") return [hit("history-rewrite", "high", `git ${command.sub} rewrites the repository's history`)];
  if (command.sub !== "push") return [];
  const args = command.rest;
  const mirror = args.some((a) => a.text === "--mirror");
  if (mirror) return [hit("force-push-protected", "high", "git push --mirror overwrites every branch of the remote")];
  const forced = args.some((a) => /^(--force(=.*)?|--force-with-lease(=.*)?|--force-if-includes)$/.test(a.text) || (/^-[A-Za-z]+$/.test(a.text) && a.text.includes("f")));
  const deleting = args.some((a) => a.text === "--delete" || (/^-[A-Za-z]+$/.test(a.text) && a.text.includes("d")));
  // git push [remote] [refspec…]: the first operand is the remote.
  const refspecs = operands(args).slice(1);
  const hits: RuleHit[] = [];
  for (const spec of refspecs) {
    const plus = spec.text.startsWith("+");
    const body = plus ? spec.text.slice(1) : spec.text;
    const colon = body.lastIndexOf(":");
    const target = colon >= 0 ? body.slice(colon + 1) : body;
    const removes = colon === 0 || deleting;
    if (!PROTECTED_BRANCH.test(target)) continue;
    if (plus || forced) hits.push(hit("force-push-protected", "high", `a forced push to the protected branch ${target}`));
    else if (removes) hits.push(hit("force-push-protected", "high", `deleting the protected branch ${target} on the remote`));
  }
  if (forced && refspecs.length === 0) hits.push(hit("force-push-protected", "medium", "a forced push of the current branch, which may be a protected one"));
  return hits;
};

const INTERPRETERS = /^(sh|bash|zsh|dash|ksh|mksh|ash|fish|busybox|python[0-9.]*|node|nodejs|deno|bun|perl|ruby|php|pwsh|powershell|iex|invoke-expression)$/;

const downloadAndRun: Rule = (argv, command) => {
  const name = baseName(argv[0].text);
  if (!INTERPRETERS.test(name) && name !== "eval" && name !== "source" && name !== ".") return [];
  const fromPipe = command.pipedFrom.find((stage) => {
    const inner = unwrapCommand(stage.argv);
    return inner.length > 0 && FETCHERS.has(baseName(inner[0].text));
  });
  // `python script.py` reads its script, not the pipe; `sh -s`, `bash -`, `python -` read stdin.
  const readsStdin = argv.slice(1).every((a) => a.text.startsWith("-"));
  if (fromPipe && readsStdin) return [hit("download-and-run", "high", `what ${baseName(unwrapCommand(fromPipe.argv)[0].text)} downloads is piped into ${name}`)];
  const substituted = argv.slice(1).find((a) => a.fetches);
  if (substituted) return [hit("download-and-run", "high", `${name} runs a download (${substituted.text})`)];
  return [];
};

const worldWritable: Rule = (argv) => {
  if (baseName(argv[0].text) !== "chmod") return [];
  const args = argv.slice(1);
  if (!hasFlag(args, "R", ["--recursive"])) return [];
  const [mode, ...targets] = operands(args);
  if (!mode) return [];
  const numeric = /^0?[0-7]{3,4}$/.test(mode.text) && /[2367]$/.test(mode.text);
  const symbolic = /(^|,)[ugo]*[ao][ugo]*[+=][rwxXst]*w/.test(mode.text) || /(^|,)[+=][rwxXst]*w/.test(mode.text);
  if (!numeric && !symbolic) return [];
  return [hit("world-writable-recursive", "high", `chmod -R ${mode.text} makes ${targets.map((t) => t.text).join(" ") || "a tree"} writable by everyone`)];
};

/** Devices that are not disks. */
const HARMLESS_DEVICE = /^\/dev\/(null|zero|full|u?random|stdout|stderr|stdin|tty\w*|pts\/\d+|fd\/\d+|console|ptmx|shm\/.*)$/;
const isDisk = (text: string) => text.startsWith("/dev/") && !HARMLESS_DEVICE.test(text);
const DISK_TOOLS = /^(mkfs(\..+)?|mke2fs|mkswap|wipefs|fdisk|sfdisk|cfdisk|parted|sgdisk|gdisk|blkdiscard|hdparm)$/;

const blockDeviceWrite: Rule = (argv, command) => {
  const name = baseName(argv[0].text);
  const hits: RuleHit[] = [];
  for (const target of command.writes) if (isDisk(target.text)) hits.push(hit("block-device-write", "high", `a redirect writes to the device ${target.text}`));
  if (name === "dd") {
    const of = argv.find((a) => a.text.startsWith("of="));
    if (of && isDisk(of.text.slice(3))) hits.push(hit("block-device-write", "high", `dd writes to the device ${of.text.slice(3)}`));
  }
  if (DISK_TOOLS.test(name)) {
    const device = operands(argv.slice(1)).find((a) => isDisk(a.text));
    if (device || name.startsWith("mkfs") || name === "wipefs") hits.push(hit("block-device-write", "high", `${name} rewrites ${device ? `the device ${device.text}` : "a disk"}`));
  }
  if (name === "shred" && argv.slice(1).some((a) => isDisk(a.text))) hits.push(hit("block-device-write", "high", "shred overwrites a device"));
  return hits;
};

const DB_CLIS = /^(psql|mysql|mariadb|sqlite3|sqlite|duckdb|mongosh|mongo|redis-cli|clickhouse|clickhouse-client|cockroach|sqlcmd|cqlsh|snowsql|bq)$/;
/** Statements that destroy data. The command is parsed as shell; its SQL is matched as SQL text. */
const DESTRUCTIVE_SQL = /\b(drop\s+(database|table|schema|keyspace|collection|user|role)\b|truncate\b|delete\s+from\s+[\w."`[\]]+\s*(;|$)|flushall\b|flushdb\b|dropdatabase\s*\(|\.drop\s*\(\s*\)|deletemany\s*\(\s*\{\s*\}\s*\))/i;

const databaseDrop: Rule = (argv, command) => {
  const name = baseName(argv[0].text);
  if (name === "dropdb" || (name === "mysqladmin" && argv.some((a) => a.text === "drop"))) return [hit("database-drop", "high", `${name} drops a database`)];
  if (!DB_CLIS.test(name)) return [];
  const texts = [...argv.slice(1).map((a) => a.text), ...(command.stdinText ? [command.stdinText] : [])];
  // What an echo, printf or cat sends into the client is its SQL too.
  for (const stage of command.pipedFrom) {
    const inner = unwrapCommand(stage.argv);
    if (inner.length > 0 && ["echo", "printf", "cat"].includes(baseName(inner[0].text))) texts.push(...inner.slice(1).map((a) => a.text), stage.stdinText ?? "");
  }
  const statement = texts.map((t) => DESTRUCTIVE_SQL.exec(t)?.[0]).find(Boolean);
  return statement ? [hit("database-drop", "high", `${statement.trim()} sent to ${name}`)] : [];
};

const AGENT_SETTINGS = [
  /(^|\/)\.claude\/(settings(\.local)?\.json|hooks\/)/,
  /(^|\/)\.claude\.json$/,
  /(^|\/)\.codex\/(config\.toml|hooks\.json)$/,
  /(^|\/)\.gemini\/settings\.json$/,
  /(^|\/)\.github\/hooks(\/|$)/,
  /(^|\/)\.cursor\/hooks\.json$/,
  /(^|\/)\.qwen\/settings\.json$/,
  /(^|\/)\.factory\/(settings|hooks)/,
  /(^|\/)\.config\/hookplane(\/|$)/,
  /managed-settings\.json$/,
];
const touchesSettings = (text: string) => AGENT_SETTINGS.some((re) => re.test(text));
/** Programs whose operands they change or remove (cp/mv/install/ln: only the last one, the destination). */
const WRITERS_ALL = new Set(["rm", "unlink", "truncate", "tee", "shred", "chmod", "chattr", "touch"]);
const WRITERS_LAST = new Set(["cp", "mv", "install", "ln", "rsync", "scp"]);

const agentSettingsWrite: Rule = (argv, command) => {
  const name = baseName(argv[0].text);
  if (name === "hookplane" && ["logout", "uninstall"].includes(argv[1]?.text ?? "")) return [hit("agent-settings-write", "high", `hookplane ${argv[1].text} turns Hookplane's hooks off on this machine`)];
  const targets = [...command.writes];
  const ops = operands(argv.slice(1));
  if (WRITERS_ALL.has(name)) targets.push(...ops);
  if (WRITERS_LAST.has(name) && ops.length > 1) targets.push(ops[ops.length - 1]);
  if ((name === "sed" || name === "perl") && argv.some((a) => /^-[A-Za-z]*i/.test(a.text) || a.text.startsWith("--in-place"))) targets.push(...ops);
  const target = targets.find((t) => touchesSettings(t.text));
  return target ? [hit("agent-settings-write", "high", `${name === "" ? "a redirect" : name} changes ${target.text}, the agent's own hook settings`)] : [];
};

/** shell.discard's one rule: a team opts into it (release and clean scripts run these on purpose). */
export const DISCARD_SHELL_RULES: readonly DetectorRule[] = [
  { rule: "discard-uncommitted-work", finds: "git reset --hard, git clean -f (not -n), git checkout -- <paths> or checkout ., git restore without --staged, git stash drop/clear, git branch -D: work that was never committed or merged is lost" },
];

const gitDiscard: Rule = (argv) => {
  if (baseName(argv[0].text) !== "git") return [];
  const command = gitSubcommand(argv.slice(1));
  const discarded = command && discardsWork(command.sub, command.rest);
  return discarded ? [hit("discard-uncommitted-work", discarded.confidence, discarded.why)] : [];
};

export const DISCARD_RULES: readonly Rule[] = [gitDiscard];

export const RULES: readonly Rule[] = [recursiveDelete, gitRules, downloadAndRun, worldWritable, blockDeviceWrite, databaseDrop, agentSettingsWrite];
