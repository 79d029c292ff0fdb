/**
 * How a shell step (the `shell` tool, a `command` hook) is started on this machine: sandboxed as
 * far as the machine allows, as a user other than root, and so that its whole process tree dies
 * with the worker that started it (issue 19: a step's shell outlived a kill -9 of its worker in 5
 * of 5 trials and ran again on resume).
 *
 * Three levels, probed once per process (`detectShellSandbox`), best first:
 *
 * - `namespaces` (the server is root, util-linux `unshare` works): the step gets its own mount,
 *   PID, IPC and UTS namespaces (and network, unless HOOKPLANE_SHELL_NETWORK=host). Inside, the
 *   data directory, the other workspaces, the app folder, the server's home and the database's
 *   local socket are covered by empty tmpfs mounts, /tmp is private, the step's own workspace is
 *   mounted back in, and the command runs as `nobody` with no capabilities and no_new_privs.
 * - `user-namespaces` (the server is not root): the same through an unprivileged user namespace;
 *   the step is "root" only inside it, which is the server's own unprivileged user outside.
 * - `none` (no namespaces, e.g. a container without CAP_SYS_ADMIN): plain `sh`, still as `nobody`
 *   when the server is root. Nothing is hidden beyond file permissions.
 *
 * bubblewrap is not used: it is not installed on the machines this runs on, and `unshare` +
 * `setpriv` from util-linux (always present on Debian and friends) give the same namespaces.
 *
 * No orphans. Measured on the development machine (2 cores, load about 2.5; kill -9 of a node
 * worker 1 s into `sleep 3; echo done >> file`, then polling /proc every 5 ms; `npm run
 * bench:sandbox`, 5 trials each, and lib/platform/security/orphan-kill.test.ts):
 * - a plain detached process group (before): the step lived on and wrote the file, 5 of 5;
 * - `namespaces` (chosen): `setpriv --pdeathsig KILL` makes the kernel kill `unshare` when the
 *   worker dies, `unshare --kill-child` kills the namespace's first process, and the kernel kills
 *   every other process of a PID namespace with it (double forks and setsid included): the whole
 *   tree gone 14 ms after the kill (p50, shell tool; 26 ms for a command hook, max 50 ms), the file
 *   never written, 10 of 10;
 * - `none` (the fallback): a supervising `sh` (as the step's user) with `--pdeathsig TERM` traps
 *   the signal and kills its process group: gone after 13-23 ms (p50), file never written, 10 of
 *   10; a process that made a group of its own would escape this one, hence the namespaces first.
 * The cost: a sandboxed step (`true`) takes 42 ms (p50) against 7 ms for a plain `sh -c`.
 * PR_SET_PDEATHSIG fires when the *thread* that forked the child exits, not the process. Node
 * forks children in `uv_spawn` on the event loop thread (not the libuv thread pool), which lives
 * as long as the process; a step started from a worker_thread dies with that thread, which is
 * what a step should do. The kernel clears the signal when credentials change, so it is set by the
 * process that is not switching users (the outer `setpriv`), or after the switch (`none`).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ShellLauncher } from "@/lib/core/hooks/ports";
import { isPathInside } from "@/lib/core/workspace/workspace-path";
import { getConfig } from "@/lib/platform/config/config";

export type SandboxKind = "namespaces" | "user-namespaces" | "none";
export type OrphanGuard = "pid-namespace" | "process-group" | "none";

export interface ShellSandbox {
  kind: SandboxKind;
  /** The user steps run as, when the server is root; undefined = the server's own user. */
  runAs: { uid: number; gid: number; name: string } | undefined;
  orphanGuard: OrphanGuard;
  /** Why each better level did not hold here (shown in Settings). */
  notes: string[];
}

export interface SandboxMounts {
  /** Covered by an empty, read-only-for-others tmpfs inside the sandbox. */
  hide: string[];
  /** Replaced by an empty, world-writable (sticky) tmpfs: /tmp and friends. */
  privateTmp: string[];
  network: "none" | "host";
}

/**
 * Runs inside the new namespaces as their root (argv: workspace, command, "uid:gid" or "", the
 * fstab of the empty mounts). The workspace is held open on fd 3 before the folders above it
 * disappear, then mounted back at its own path (`--no-canonicalize`, or mount would resolve
 * /proc/self/fd/3 to the path, which by then names an empty tmpfs). The tmpfs mounts are one
 * `mount -a` from a generated fstab: one process instead of one per folder (about 30 ms instead of
 * 75 ms for six folders on the loaded development machine). This shell stays the first process of
 * the PID namespace, as root, while the command runs as its child: when it dies, the kernel kills
 * everything else in the namespace. Its own stderr goes to /dev/null so a killed step is not
 * reported twice (dash prints "Terminated" for a foreground job killed by a signal); the command
 * gets the real one back from fd 4 before `sh -c` starts it.
 */
const NAMESPACE_SETUP = `set -e
ws=$1 cmd=$2 user=$3 fstab=$4
exec 3<"$ws"
[ -z "$fstab" ] || mount -a -T "$fstab"
mkdir -p "$ws"
mount --no-canonicalize --bind /proc/self/fd/3 "$ws"
exec 3<&-
cd "$ws"
set +e
exec 4>&2 2>/dev/null
step='exec 2>&4 4>&-; exec sh -c "$1"'
if [ -n "$user" ]; then
  setpriv --reuid="\${user%:*}" --regid="\${user#*:}" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- sh -c "$step" hookplane-step "$cmd"
else
  setpriv --no-new-privs --inh-caps=-all --bounding-set=-all -- sh -c "$step" hookplane-step "$cmd"
fi`;

/** fstab escapes for a path: space, tab, newline and backslash as octal. */
function fstabPath(dir: string): string {
  return dir.replace(/[ \t\n\\]/g, (ch) => `\\${ch.charCodeAt(0).toString(8).padStart(3, "0")}`);
}


/**
 * The fstab of the empty mounts, as a root-only file (mount -a cannot read a pipe). Folders that
 * do not exist are left out (nothing to hide), and so are folders inside another one (its mount
 * hides them already). Written once per distinct content (named by its hash) into a folder only
 * this user can enter, shared by this user's processes.
 */
function fstabFile(mounts: SandboxMounts): string | undefined {
  // A folder in both lists (HOME=/tmp) stays writable: the private-tmp entry comes first and wins.
  const entries = [
    ...mounts.privateTmp.map((dir) => ({ dir, options: "mode=1777,size=256m" })),
    ...mounts.hide.map((dir) => ({ dir, options: "mode=0755,size=1m" })),
  ].filter(
    (e) => isDirectory(e.dir),
  );
  const kept = entries.filter((e) => !entries.some((other) => other !== e && other.dir !== e.dir && isPathInside(other.dir, e.dir)));
  const unique = kept.filter((e, i) => kept.findIndex((o) => o.dir === e.dir) === i);
  if (unique.length === 0) return undefined;
  const content = unique.map((e) => `hookplane-sandbox ${fstabPath(e.dir)} tmpfs ${e.options},nosuid,nodev 0 0\n`).join("");
  const g = globalThis as GlobalWithSandbox;
  const name = `${createHash("sha256").update(content).digest("hex").slice(0, 16)}.fstab`;
  const write = () => {
    const dir = (g[FSTAB_DIR] ??= privateFolder());
    const file = path.join(dir, name);
    if (!existsSync(file)) {
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, content, { mode: 0o600 });
      renameSync(temp, file);
    }
    return file;
  };
  try {
    return write();
  } catch {
    // The private folder went away (a tmp cleaner): make a new one.
    g[FSTAB_DIR] = undefined;
    return write();
  }
}

/**
 * `<tmpdir>/hookplane-sandbox-<uid>`, 0700 and ours; if someone else made that name first (or it
 * is a link), a fresh folder of this process instead.
 */
function privateFolder(): string {
  const uid = process.getuid?.() ?? 0;
  const dir = path.join(os.tmpdir(), `hookplane-sandbox-${uid}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const stat = lstatSync(dir);
  if (stat.isDirectory() && stat.uid === uid && (stat.mode & 0o777) === 0o700) return dir;
  return mkdtempSync(path.join(os.tmpdir(), "hookplane-sandbox-"));
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Without namespaces: this shell supervises the step. The parent-death signal (TERM) reaches it
 * when the worker dies, and it kills its whole process group. stdin is passed through fd 3
 * because a background job's stdin is /dev/null otherwise (command hooks read the event there).
 */
const SUPERVISOR = `trap 'kill -s KILL 0' TERM
exec 3<&0
sh -c "$1" <&3 3<&- &
exec 3<&-
wait $!`;

function nobody(): { uid: number; gid: number; name: string } {
  try {
    const line = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((l) => l.startsWith("nobody:"));
    const [, , uid, gid] = line?.split(":") ?? [];
    if (uid && gid) return { uid: Number(uid), gid: Number(gid), name: "nobody" };
  } catch {
    // No /etc/passwd: the conventional id.
  }
  return { uid: 65534, gid: 65534, name: "nobody" };
}

function has(program: string, args: string[]): boolean {
  const result = spawnSync(program, args, { stdio: "ignore", timeout: 5_000 });
  return result.status === 0;
}

function unshareArgs(kind: "namespaces" | "user-namespaces", network: "none" | "host"): string[] {
  return [
    "unshare",
    ...(kind === "user-namespaces" ? ["--user", "--map-root-user"] : []),
    "--mount",
    "--pid",
    "--ipc",
    "--uts",
    ...(network === "none" ? ["--net"] : []),
    "--fork",
    "--kill-child=KILL",
    "--mount-proc",
    "--",
  ];
}

/**
 * Gives the workspace folder to the step's user, so the step can write where it runs (and files
 * the server's tools create there follow it: workspace-path.ts giveToWorkspaceOwner).
 */
export function giveWorkspace(workspace: string, runAs: ShellSandbox["runAs"]) {
  if (!runAs) return;
  const stat = statSync(workspace);
  if (stat.uid !== runAs.uid || stat.gid !== runAs.gid) chownSync(workspace, runAs.uid, runAs.gid);
}

/** The launcher for `sandbox` with these mounts: every step starts through it. */
export function sandboxLauncher(sandbox: ShellSandbox, mounts: SandboxMounts): ShellLauncher {
  const user = sandbox.runAs ? `${sandbox.runAs.uid}:${sandbox.runAs.gid}` : "";
  return ({ command, cwd }) => {
    if (!cwd) throw new Error("a shell step needs a workspace to run in, and this one has none");
    const workspace = realpathSync(cwd);
    giveWorkspace(workspace, sandbox.runAs);
    if (sandbox.kind !== "none") {
      return {
        file: "setpriv",
        args: ["--pdeathsig", "KILL", "--", ...unshareArgs(sandbox.kind, mounts.network), "sh", "-c", NAMESPACE_SETUP, "hookplane-sandbox", workspace, command, user, fstabFile(mounts) ?? ""],
      };
    }
    if (sandbox.orphanGuard === "process-group") {
      const drop = sandbox.runAs
        ? [`--reuid=${sandbox.runAs.uid}`, `--regid=${sandbox.runAs.gid}`, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all"]
        : [];
      return { file: "setpriv", args: [...drop, "--no-new-privs", "--pdeathsig", "TERM", "--", "sh", "-c", SUPERVISOR, "hookplane-step", command] };
    }
    // No setpriv: Node drops to the step's user itself; nothing guards against orphans.
    return { file: "sh", args: ["-c", command], ...(sandbox.runAs ? { uid: sandbox.runAs.uid, gid: sandbox.runAs.gid } : {}) };
  };
}

/** Starts `launcher` on `echo hookplane-ok` in a throwaway workspace: does the whole chain hold? */
function probe(sandbox: ShellSandbox): string | undefined {
  const base = mkdtempSync(path.join(os.tmpdir(), "hookplane-probe-"));
  try {
    const workspace = path.join(base, "ws");
    const hidden = path.join(base, "hidden");
    mkdirSync(workspace);
    mkdirSync(hidden);
    const launcher = sandboxLauncher(sandbox, { hide: [hidden], privateTmp: [], network: "none" });
    const expectUid = sandbox.runAs ? String(sandbox.runAs.uid) : sandbox.kind === "user-namespaces" ? "0" : String(process.getuid?.() ?? "");
    const { file, args, uid, gid } = launcher({ command: 'echo "hookplane-ok $(id -u)"', cwd: workspace });
    const env: Record<string, string> = { PATH: getConfig().commandEnvironment.PATH ?? "/usr/bin:/bin" };
    const result = spawnSync(file, args, { cwd: workspace, encoding: "utf8", timeout: 10_000, env: env as NodeJS.ProcessEnv, uid, gid });
    const out = (result.stdout ?? "").trim();
    if (out === `hookplane-ok ${expectUid}`) return undefined;
    return (result.stderr || result.error?.message || out || `exit ${result.status}`).trim().split("\n").pop();
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

const KEY = Symbol.for("hookplane.shellSandbox");
const FSTAB_DIR = Symbol.for("hookplane.shellSandboxFstabs");
type GlobalWithSandbox = typeof globalThis & { [KEY]?: ShellSandbox; [FSTAB_DIR]?: string };

/** The best level that holds on this machine, probed once per process (about 50 ms). */
export function detectShellSandbox(): ShellSandbox {
  const g = globalThis as GlobalWithSandbox;
  return (g[KEY] ??= probeLevels());
}

function probeLevels(): ShellSandbox {
  const root = process.getuid?.() === 0;
  const runAs = root ? nobody() : undefined;
  const notes: string[] = [];
  if (process.platform !== "linux") {
    return { kind: "none", runAs: undefined, orphanGuard: "none", notes: [`${process.platform}: no Linux namespaces, and steps run as the server's user`] };
  }
  const setpriv = has("setpriv", ["--version"]);
  if (!setpriv) notes.push("setpriv (util-linux) is not installed: no sandbox and no parent-death signal");
  if (setpriv && has("unshare", ["--version"])) {
    const levels: ShellSandbox[] = root
      ? [{ kind: "namespaces", runAs, orphanGuard: "pid-namespace", notes: [] }]
      : [{ kind: "user-namespaces", runAs: undefined, orphanGuard: "pid-namespace", notes: [] }];
    for (const level of levels) {
      const failure = probe(level);
      if (!failure) return { ...level, notes };
      notes.push(`${level.kind}: ${failure}`);
    }
  } else if (setpriv) notes.push("unshare (util-linux) is not installed");
  const fallback: ShellSandbox = { kind: "none", runAs, orphanGuard: setpriv ? "process-group" : "none", notes };
  const failure = probe(fallback);
  if (failure) notes.push(`plain shell: ${failure}`);
  return fallback;
}
