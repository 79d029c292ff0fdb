/**
 * Where a path a command names lies, as far as the command's text can say: inside the folder the
 * agent works in, in a scratch folder, or outside (the home folder, the system, above the
 * workspace), or decided only when the shell runs (`$DIR`, `$(…)`).
 */
import path from "node:path";
import { isPathInside } from "@/lib/core/workspace/workspace-path";
import type { Confidence } from "../types";
import type { ShellWord } from "./shell-script";

/** Folders meant for throwaway files: deleting under them is routine. */
const SCRATCH = ["/tmp", "/var/tmp", "/dev/shm"];
/** The workspace a relative path is read against when the event names no cwd. */
const ASSUMED_WORKSPACE = "/workspace";

export interface PathVerdict {
  confidence: Confidence;
  /** e.g. "/etc is outside the workspace". */
  why: string;
  /** The path is the workspace itself. */
  whole?: boolean;
}

/** Why deleting (or otherwise destroying) `word` reaches outside the workspace; undefined when it does not. */
export function outsideWorkspace(word: ShellWord, cwd: string | undefined): PathVerdict | undefined {
  const text = word.text;
  if (text === "") return undefined;
  if (!word.literal) {
    const dynamicAt = text.search(/\$|`/);
    // `build/$TARGET` stays under build/: its static head is what can be judged.
    if (dynamicAt > 0) {
      const head = text.slice(0, text.lastIndexOf("/", dynamicAt) + 1);
      if (head !== "" && head !== "/") return outsideWorkspace({ text: head, literal: true, fetches: false }, cwd);
    }
    if (/^\$\{?HOME\b/.test(text)) return { confidence: "high", why: `${text} is in the home folder` };
    // The temporary folder by its variable is scratch, as /tmp is.
    if (/^\$\{?(TMPDIR|TMP|TEMP|RUNNER_TEMP)\}?\/./.test(text)) return undefined;
    // `$DIR/…` with DIR empty or unset is a path from the root (the Steam installer's `rm -rf "$STEAMROOT/"*`);
    // a lone `$DIR` is as safe as what it holds, which only the run knows.
    if (/^(\$\{?\w+\}?|\$\(.*\)|`.*`)\//s.test(text)) return { confidence: "medium", why: `${text} starts at the root when ${text.slice(0, text.indexOf("/"))} is empty` };
    return undefined;
  }
  if (text === "~" || text.startsWith("~/") || /^~[A-Za-z_]/.test(text)) return { confidence: "high", why: `${text} is in the home folder` };
  const workspace = cwd && path.posix.isAbsolute(cwd) ? path.posix.normalize(cwd) : ASSUMED_WORKSPACE;
  const absolute = path.posix.isAbsolute(text) ? path.posix.normalize(text) : path.posix.join(workspace, text);
  if (SCRATCH.some((dir) => absolute !== dir && isPathInside(dir, absolute))) return undefined;
  if (absolute === workspace) return { confidence: "medium", why: `${text} is the whole workspace`, whole: true };
  // `.*` also matches `..` in shells that do not skip the dot entries: the folder above.
  if (/(^|\/)\.\*$/.test(text)) return { confidence: "medium", why: `${text} also matches .. (the folder above) in many shells` };
  if (path.posix.dirname(absolute) === workspace && /^\*$/.test(path.posix.basename(absolute))) return { confidence: "medium", why: `${text} is everything in the workspace`, whole: true };
  if (isPathInside(workspace, absolute)) return undefined;
  return { confidence: "high", why: `${text} is outside the workspace${cwd ? ` (${workspace})` : ""}` };
}
