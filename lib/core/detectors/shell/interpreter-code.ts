/**
 * Code a command hands to another interpreter inline (`python -c`, `node -e`, `ruby -e`,
 * `perl -e`, `php -r`): what of it is shell (the string given to `system`, `execSync`,
 * `subprocess.run(..., shell=True)`, `os.system`, backticks) is parsed as shell in turn, and a
 * recursive delete through the language's own API (`shutil.rmtree`, `FileUtils.rm_rf`,
 * `fs.rmSync(…, {recursive})`, `File::Path::rmtree`) is read for its path. The code is not
 * parsed as its language: only literal strings at those calls are read, so a path or command
 * built at run time is not seen (docs/detectors.md says so).
 */
import { baseName, type ShellWord } from "./shell-script";

/** The interpreters and the flag that takes inline code. */
const INLINE_FLAG: Record<string, RegExp> = {
  python: /^-c$/,
  node: /^(-e|--eval|-p|--print)$/,
  nodejs: /^(-e|--eval|-p|--print)$/,
  deno: /^eval$/,
  bun: /^(-e|--eval)$/,
  ruby: /^-e$/,
  perl: /^-[A-Za-z]*e$/,
  php: /^-r$/,
};

/** The inline code a command runs, when it is literal. */
export function inlineCodeOf(argv: ShellWord[]): { code: string; interpreter: string } | undefined {
  const name = baseName(argv[0]?.text ?? "").replace(/^(python)[0-9.]*$/, "$1");
  const flag = INLINE_FLAG[name];
  if (!flag) return undefined;
  const at = argv.findIndex((w, i) => i > 0 && flag.test(w.text));
  const code = at > 0 ? argv[at + 1] : undefined;
  return code && code.literal ? { code: code.text, interpreter: `${baseName(argv[0].text)} ${argv[at].text}` } : undefined;
}

/** A string literal (single, double or back quotes), its text. */
const LITERAL = String.raw`(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|\`((?:[^\`\\]|\\.)*)\`)`;
/** Calls that hand a string to a shell. */
const SHELL_CALL = new RegExp(String.raw`\b(?:system|exec|execSync|spawnSync|popen|check_output|check_call|getoutput|getstatusoutput|call|run|Popen|shell_exec|passthru|proc_open)\s*\(\s*(?:\[\s*)?${LITERAL}`, "g");
/** Backticks and %x() run shell in Ruby, Perl and PHP. */
const BACKTICKS = /`([^`]+)`/g;
/** Recursive deletes through a language's own API, with a literal first argument. */
const RECURSIVE_DELETE = new RegExp(String.raw`\b(?:shutil\.rmtree|FileUtils\.(?:rm_rf|rm_r|remove_dir|remove_entry_secure)|rmtree|fs(?:\.promises)?\.(?:rmSync|rm|rmdirSync)|fsPromises\.rm|Deno\.remove(?:Sync)?)\s*\(\s*${LITERAL}`, "g");

const unquote = (m: RegExpExecArray, first: number) => (m[first] ?? m[first + 1] ?? m[first + 2] ?? "").replace(/\\(.)/g, "$1");

/** The shell commands inline code runs (each a script to parse). */
export function shellInCode(code: string): string[] {
  const scripts: string[] = [];
  for (const m of code.matchAll(SHELL_CALL)) scripts.push(unquote(m, 1));
  for (const m of code.matchAll(BACKTICKS)) scripts.push(m[1]);
  return scripts.filter((s) => s.trim() !== "");
}

/** The paths inline code deletes recursively through its language's API. */
export function recursiveDeletesInCode(code: string): string[] {
  return [...code.matchAll(RECURSIVE_DELETE)].map((m) => unquote(m, 1)).filter((p) => p !== "");
}
