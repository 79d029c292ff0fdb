/**
 * A shell command as the destructive-shell rules read it: parsed by tree-sitter's bash grammar
 * (bash-parser.ts), flattened into simple commands with their words unquoted, what they write to,
 * what they read on stdin, the pipeline stages before them, and the scripts they run (`sh -c '…'`,
 * `eval`, `ssh host '…'`) parsed in turn. Rules then look at argv, not at text: a regex over the
 * raw command cannot tell `rm -r -f /` from `echo "rm -rf /"`.
 */
import type { Node } from "web-tree-sitter";
import { bashParser } from "./bash-parser";
import { inlineCodeOf, shellInCode } from "./interpreter-code";

/** One word of a command, quotes removed; expansions kept as written (`$HOME`, `$(…)`). */
export interface ShellWord {
  text: string;
  /** No expansion: the text is what the program receives (globs aside). */
  literal: boolean;
  /** Holds a command substitution or process substitution that downloads (`$(curl …)`, `<(wget …)`). */
  fetches: boolean;
}

export interface ShellCommand {
  argv: ShellWord[];
  /** Files its redirections write (`>`, `>>`, `&>`, `>|`, `<>`). */
  writes: ShellWord[];
  /** Literal text it reads on stdin from a here-document or here-string. */
  stdinText?: string;
  /** The commands piped into it, first stage first. */
  pipedFrom: ShellCommand[];
  /** Its text in the source (a pipeline's stage: the whole pipeline), for the reason a rule gives. */
  source: string;
  /** The command that ran this one's script (`sh -c`, `eval`, `ssh`), when it is nested. */
  via?: string;
}

export interface ParsedShell {
  commands: ShellCommand[];
  /** Part of the text is not bash the grammar knows (its commands are still read, as far as they go). */
  hasError: boolean;
}

const WRITE_OPERATORS = new Set([">", ">>", "<>", ">&", ">|", "&>", "&>>"]);
/** How deep scripts run by scripts are followed (`sh -c "bash -c '…'"`). */
const MAX_NESTING = 3;

/**
 * Parses `source`, giving up (undefined) once `budgetMs` has passed: parsing costs about a
 * microsecond a character of dense commands (a here-document's text far less), and this runs in
 * the hook path of every tool call.
 */
export function parseShell(source: string, budgetMs = Infinity, memo?: Map<string, ParsedShell | undefined>): ParsedShell | undefined {
  // The shell detectors and session rules of one dispatch read the same command: parsed once (memo is the dispatch's).
  if (memo?.has(source)) return memo.get(source);
  const deadline = performance.now() + budgetMs;
  const result = parseAt(source, 0, undefined, deadline);
  memo?.set(source, result);
  return result;
}

function parseAt(source: string, depth: number, via: string | undefined, deadline: number): ParsedShell | undefined {
  // Returning true from the progress callback cancels the parse (web-tree-sitter's ParseOptions; its type says void).
  const progressCallback = (() => performance.now() > deadline) as unknown as () => void;
  const tree = bashParser().parse(source, null, deadline === Infinity ? undefined : { progressCallback });
  if (!tree) return undefined;
  try {
    const root = tree.rootNode;
    const commands = collectCommands(root, via);
    let hasError = root.hasError;
    if (depth < MAX_NESTING) {
      for (const command of [...commands]) {
        for (const script of scriptsRunBy(command)) {
          const nested = parseAt(script.text, depth + 1, script.via, deadline);
          if (!nested) return undefined;
          commands.push(...nested.commands);
          hasError ||= nested.hasError;
        }
      }
    }
    return { commands, hasError };
  } finally {
    tree.delete();
  }
}

function collectCommands(root: Node, via: string | undefined): ShellCommand[] {
  const out: ShellCommand[] = [];
  const staged = new Set<number>();
  const visit = (node: Node) => {
    if (node.type === "pipeline") {
      // Each stage knows the stages that feed it.
      const stages: ShellCommand[] = [];
      for (const stage of node.namedChildren) {
        const command = stage && commandIn(stage);
        if (!command) continue;
        staged.add(command.id);
        stages.push(commandOf(command, [...stages], node.text, via));
      }
      out.push(...stages);
    } else if (node.type === "command" && !staged.has(node.id)) {
      out.push(commandOf(node, [], statementOf(node).text, via));
    }
    for (const child of node.namedChildren) if (child) visit(child);
  };
  visit(root);
  return out;
}

/** A pipeline stage's command (`a 2>&1 | b`: the stage is a redirected statement around it). */
function commandIn(stage: Node): Node | undefined {
  if (stage.type === "command") return stage;
  if (stage.type === "redirected_statement") {
    const body = stage.childForFieldName("body");
    return body?.type === "command" ? body : undefined;
  }
  return undefined;
}

function statementOf(command: Node): Node {
  const parent = command.parent;
  return parent?.type === "redirected_statement" ? parent : command;
}

function commandOf(node: Node, pipedFrom: ShellCommand[], source: string, via: string | undefined): ShellCommand {
  const argv: ShellWord[] = [];
  const name = node.childForFieldName("name");
  if (name) argv.push(wordOf(name.firstNamedChild ?? name));
  for (const argument of node.childrenForFieldName("argument")) if (argument) argv.push(wordOf(argument));
  const command: ShellCommand = { argv, writes: [], pipedFrom, source, ...(via && { via }) };
  const redirects = [...node.childrenForFieldName("redirect")];
  const statement = node.parent;
  if (statement?.type === "redirected_statement") redirects.push(...statement.childrenForFieldName("redirect"));
  for (const redirect of redirects) if (redirect) readRedirect(redirect, command);
  return command;
}

function readRedirect(redirect: Node, command: ShellCommand) {
  if (redirect.type === "file_redirect") {
    const operator = redirect.children.find((c) => c && !c.isNamed)?.text ?? "";
    const destination = redirect.childForFieldName("destination");
    // `2>&1`, `>&2`: a duplicated descriptor, not a file.
    if (destination && WRITE_OPERATORS.has(operator) && destination.type !== "number") command.writes.push(wordOf(destination));
  } else if (redirect.type === "herestring_redirect") {
    const word = redirect.namedChildren.find((c) => c && c.type !== "file_descriptor");
    if (word) command.stdinText = wordOf(word).text;
  } else if (redirect.type === "heredoc_redirect") {
    const body = redirect.namedChildren.find((c) => c?.type === "heredoc_body");
    if (body) command.stdinText = body.text;
    // `cat <<EOF > file`: the here-document's own redirect.
    for (const inner of redirect.childrenForFieldName("redirect")) if (inner) readRedirect(inner, command);
  }
}

function wordOf(node: Node): ShellWord {
  const state: WordState = { literal: true, fetches: false };
  const text = textOf(node, state);
  return { text, literal: state.literal, fetches: state.fetches };
}

interface WordState {
  literal: boolean;
  fetches: boolean;
}

function textOf(node: Node, state: WordState): string {
  switch (node.type) {
    case "word":
    case "command_name":
    case "number":
      return node.firstNamedChild ? node.namedChildren.map((c) => (c ? textOf(c, state) : "")).join("") : unescape(node.text, false);
    case "raw_string":
      return node.text.slice(1, -1);
    case "ansi_c_string":
      return node.text.slice(2, -1);
    case "string_content":
      return unescape(node.text, true);
    case "string":
    case "concatenation":
      return partsOf(node, state);
    case "command_substitution":
    case "process_substitution":
      state.literal = false;
      if (fetchesIn(node)) state.fetches = true;
      return node.text;
    default:
      // $VAR, ${VAR…}, $((…)), globs the grammar names: decided when the shell runs.
      state.literal = false;
      return node.text;
  }
}

/** A string's or a concatenation's pieces, with the literal text between named children kept. */
function partsOf(node: Node, state: WordState): string {
  const quoted = node.type === "string";
  const own = node.text;
  const base = node.startIndex;
  let text = "";
  let at = quoted ? 1 : 0;
  const end = own.length - (quoted ? 1 : 0);
  for (const child of node.namedChildren) {
    if (!child) continue;
    const from = child.startIndex - base;
    if (from > at) text += unescape(own.slice(at, from), quoted);
    text += textOf(child, state);
    at = child.endIndex - base;
  }
  if (end > at) text += unescape(own.slice(at, end), quoted);
  return text;
}

/** Backslashes quote the next character (inside double quotes only before $ ` " \ and newline). */
function unescape(text: string, quoted: boolean): string {
  if (!text.includes("\\")) return text;
  return quoted ? text.replace(/\\([$`"\\\n])/g, "$1") : text.replace(/\\(.)/gs, "$1");
}

function fetchesIn(node: Node): boolean {
  for (const command of node.descendantsOfType("command")) {
    const name = command?.childForFieldName("name");
    if (name && FETCHERS.has(baseName(wordOf(name.firstNamedChild ?? name).text))) return true;
  }
  return false;
}

/** Programs that download what they are given (their output is the download). */
export const FETCHERS = new Set(["curl", "wget", "fetch", "http", "https", "aria2c", "iwr", "invoke-webrequest"]);

/** `/usr/bin/rm` and `\rm` are rm. */
export function baseName(program: string): string {
  const slash = program.lastIndexOf("/");
  return (slash >= 0 ? program.slice(slash + 1) : program).toLowerCase();
}

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"]);

/** The scripts a command runs: its own (`sh -c`, …), or the shell its inline code calls (interpreter-code.ts). */
function scriptsRunBy(command: ShellCommand): { text: string; via: string }[] {
  const own = scriptRunBy(command);
  if (own) return [own];
  const inline = inlineCodeOf(unwrapCommand(command.argv));
  return inline ? shellInCode(inline.code).map((text) => ({ text, via: inline.interpreter })) : [];
}

/** The script a command runs, when it is literal text: `sh -c '…'`, `eval …`, `su -c '…'`, `ssh host '…'`. */
function scriptRunBy(command: ShellCommand): { text: string; via: string } | undefined {
  const argv = unwrapCommand(command.argv);
  if (argv.length === 0 || (argv.length < 2 && command.stdinText === undefined)) return undefined;
  const name = baseName(argv[0].text);
  if (SHELLS.has(name) || name === "su") {
    const at = argv.findIndex((w, i) => i > 0 && /^-[A-Za-z]*c[A-Za-z]*$/.test(w.text));
    const script = at > 0 ? argv[at + 1] : undefined;
    if (script) return script.literal ? { text: script.text, via: `${name} -c` } : undefined;
    // `bash <<EOF … EOF`, `sh <<< '…'`: a shell with no script file runs what it reads.
    const readsStdin = argv.slice(1).every((w) => w.text.startsWith("-"));
    return readsStdin && command.stdinText !== undefined ? { text: command.stdinText, via: `${name} reading a here-document` } : undefined;
  }
  if (name === "eval") {
    const rest = argv.slice(1);
    return rest.every((w) => w.literal) ? { text: rest.map((w) => w.text).join(" "), via: "eval" } : undefined;
  }
  if (name === "ssh") {
    // ssh [options] host command…: options taking a value are the ones in ssh(1)'s synopsis.
    let i = 1;
    while (i < argv.length && argv[i].text.startsWith("-")) i += /^-[BbcDEeFIiJLlmOoPpQRSWw]$/.test(argv[i].text) ? 2 : 1;
    const rest = argv.slice(i + 1);
    return rest.length > 0 && rest.every((w) => w.literal) ? { text: rest.map((w) => w.text).join(" "), via: "ssh" } : undefined;
  }
  return undefined;
}

/** Options of the wrappers below that take a value (the next word). */
const WRAPPER_VALUE_OPTIONS: Record<string, RegExp> = {
  sudo: /^-[ughpCDrtTUR]$/,
  doas: /^-[uC]$/,
  env: /^-[uCS]$/,
  nice: /^-n$/,
  ionice: /^-[cnpP]$/,
  stdbuf: /^-[ioe]$/,
  timeout: /^-[sk]$/,
  xargs: /^-[IiLlnPsdEae]$/,
  chrt: /^-[p]$/,
  taskset: /^-[c]$/,
};
const WRAPPERS = new Set(["sudo", "doas", "env", "nice", "nohup", "time", "timeout", "stdbuf", "ionice", "command", "builtin", "exec", "xargs", "chrt", "taskset", "unbuffer", "caffeinate"]);

/**
 * The command a wrapper runs: `sudo -u root rm …`, `env X=1 rm …`, `timeout 5 rm …`,
 * `xargs -0 rm …` are rm (xargs appends its input's words as more arguments).
 */
export function unwrapCommand(argv: ShellWord[]): ShellWord[] {
  let i = 0;
  for (let guard = 0; guard < 8 && i < argv.length; guard++) {
    const name = baseName(argv[i].text);
    if (!WRAPPERS.has(name)) break;
    i++;
    const valued = WRAPPER_VALUE_OPTIONS[name];
    while (i < argv.length) {
      const word = argv[i].text;
      if (word === "--") {
        i++;
        break;
      }
      if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) i++;
      else if (word.startsWith("-") && word.length > 1) i += valued?.test(word) ? 2 : 1;
      else break;
    }
    // timeout's duration, chrt's priority, taskset's mask come before the command.
    if ((name === "timeout" || name === "chrt" || name === "taskset") && i < argv.length) i++;
  }
  return argv.slice(i);
}
