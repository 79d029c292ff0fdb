/**
 * `shell.destructive`: a shell command that destroys or exposes what it should not, found from
 * the parsed command (shell-script.ts), not from a pattern over its text, so `rm -r -f /`,
 * `sudo rm -fr ~`, `find / -delete` and `bash -c 'git push origin +main'` are found and
 * `echo "rm -rf /"` or `rm -rf node_modules` are not.
 */
import type { Detector, DetectorContext, DetectorRule, Finding } from "../types";
import { DESTRUCTIVE_SHELL_RULES, DISCARD_RULES, DISCARD_SHELL_RULES, RULES, type Rule } from "./destructive-rules";
import { parseShell, unwrapCommand } from "./shell-script";

export const DESTRUCTIVE_SHELL = "shell.destructive";
export const DISCARD_SHELL = "shell.discard";

/**
 * The longest command parsed. Parsing costs about a microsecond a character of dense commands (a
 * here-document's text far less), in the hook path of every tool call; a longer command is
 * reported as unchecked (medium confidence), whatever it names, so nothing rides past the check in
 * its tail or spelled so no word list sees it (`r\m`, `r""m`). By length, not by time: the same
 * command gets the same answer on a busy machine.
 */
export const MAX_PARSED_CHARS = 16 * 1024;
/** A guard against input that makes the parser slow whatever its length (none is known). */
const PARSE_DEADLINE_MS = 250;

/** What a command the parser cannot read must name to be reported: the programs and paths the rules look for. */
const RISKY_WORDS = new RegExp(
  [
    String.raw`\b(rm|rmdir|shred|find|git|bfg|curl|wget|aria2c|chmod|dd|mkfs\S*|mke2fs|mkswap|wipefs|s?fdisk|cfdisk|parted|g?disk|sgdisk|blkdiscard|hdparm)\b`,
    String.raw`\b(psql|mysql|mysqladmin|mariadb|sqlite3?|duckdb|mongosh|mongo|redis-cli|clickhouse(-client)?|cockroach|sqlcmd|dropdb|hookplane)\b`,
    String.raw`/dev/|\.claude|\.codex|\.gemini|\.cursor|\.qwen|\.factory|\.github/hooks|managed-settings`,
  ].join("|"),
);

const UNCHECKED = [
  { rule: "unparsed", finds: "a command longer than 16 kB (MAX_PARSED_CHARS), whatever it names, or one the shell parser cannot read that names a risky program: it cannot be checked, so it is reported" },
] as const;

/** A detector made of shell rules over the parsed command (every shell detector reads the same way). */
function shellDetector(name: string, rules: readonly Rule[], documented: readonly DetectorRule[]) {
  return {
    name,
    version: 1,
    async: false,
    reads: "shell-command" as const,
    rules: [...documented, ...UNCHECKED],
    detect(text: string, context: DetectorContext): Finding[] {
      const findings: Finding[] = [];
      const parsed = text.length > MAX_PARSED_CHARS ? undefined : parseShell(text, PARSE_DEADLINE_MS, context.parsed);
      if (!parsed) {
        const why = text.length > MAX_PARSED_CHARS ? `is ${text.length} characters long, over the ${MAX_PARSED_CHARS} that are checked` : `took over ${PARSE_DEADLINE_MS} ms to parse`;
        findings.push({ detector: name, rule: "unparsed", confidence: "medium", reason: `the command ${why}: ${clip(text)}` });
        return findings;
      }
      for (const command of parsed.commands) {
        const argv = unwrapCommand(command.argv);
        // A bare redirect (`> file`) has no program: its writes are still checked.
        const program = argv.length > 0 ? argv : [{ text: "", literal: true, fetches: false }];
        for (const rule of rules) {
          for (const hit of rule(program, command, context.cwd)) {
            const where = command.via ? `${command.source} (run by ${command.via})` : command.source;
            findings.push({ detector: name, rule: hit.rule, confidence: hit.confidence, reason: `${hit.reason}: ${clip(where)}` });
          }
        }
      }
      if (parsed.hasError && findings.length === 0) {
        const risky = RISKY_WORDS.exec(text);
        if (risky) findings.push({ detector: name, rule: "unparsed", confidence: "medium", reason: `part of the command is not shell the parser can read, and it names ${risky[0]}: ${clip(text)}` });
      }
      return findings;
    },
  } satisfies Detector;
}

export const destructiveShell = shellDetector(DESTRUCTIVE_SHELL, RULES, DESTRUCTIVE_SHELL_RULES);

/**
 * `shell.discard`: commands that throw away work never committed or merged (`git reset --hard`,
 * `git clean -f`, …). Apart from shell.destructive because projects' own clean and release scripts
 * run them on purpose: a team opts in.
 */
export const discardShell = shellDetector(DISCARD_SHELL, DISCARD_RULES, DISCARD_SHELL_RULES);

function clip(text: string): string {
  const oneLine = text.slice(0, 400).replace(/\s+/g, " ").trim();
  return oneLine.length > 160 ? `${oneLine.slice(0, 157)}…` : oneLine;
}
