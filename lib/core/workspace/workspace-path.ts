/**
 * Confines file tools to the run's workspace folder. A lexical check alone is not enough: a symlink
 * inside the workspace may point anywhere, so every path is also checked after realpath.
 */
import { promises as fs } from "node:fs";
import path from "node:path";

export class WorkspaceEscapeError extends Error {
  constructor(requested: string) {
    super(`path "${requested}" is outside the workspace`);
    this.name = "WorkspaceEscapeError";
  }
}

/**
 * Whether `candidate` is `root` or lies under it, lexically (resolve symlinks first where they
 * matter). The one containment check of the code base: workspaces, the sandbox's mounts and the
 * data folder's separation all use it.
 */
export function isPathInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

async function realpathOrUndefined(p: string): Promise<string | undefined> {
  try {
    return await fs.realpath(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/**
 * Resolves `requested` (relative to the workspace, or absolute inside it) to a real path inside
 * the workspace. For a path that does not exist yet, the nearest existing ancestor must be inside,
 * and the returned path is that ancestor's real path plus the missing tail.
 */
export async function resolveInWorkspace(workspaceDir: string, requested: string): Promise<string> {
  const root = await fs.realpath(workspaceDir);
  const lexical = path.resolve(root, requested);
  if (!isPathInside(root, lexical)) throw new WorkspaceEscapeError(requested);

  const tail: string[] = [];
  let probe = lexical;
  for (;;) {
    const real = await realpathOrUndefined(probe);
    if (real !== undefined) {
      const resolved = path.join(real, ...tail);
      if (!isPathInside(root, real) || !isPathInside(root, resolved)) throw new WorkspaceEscapeError(requested);
      return resolved;
    }
    // A dangling symlink has no realpath but may still be followed by a later write.
    const link = await fs.lstat(probe).catch(() => undefined);
    if (link?.isSymbolicLink()) throw new WorkspaceEscapeError(requested);
    tail.unshift(path.basename(probe));
    probe = path.dirname(probe);
  }
}

/** The workspace-relative form shown to the model, so it never learns host paths. */
export async function toWorkspaceRelative(workspaceDir: string, absolute: string): Promise<string> {
  const root = await fs.realpath(workspaceDir);
  return path.relative(root, absolute) || ".";
}

/**
 * Files and folders the server (root) creates in a workspace are given to the workspace's owner,
 * the user shell steps run as (lib/platform/security/shell-sandbox.ts), so a step can change what a file
 * tool or a hook wrote. A no-op unless the server is root and the workspace belongs to another user.
 */
export async function giveToWorkspaceOwner(workspaceDir: string, created: { dirs?: readonly string[]; file?: fs.FileHandle }): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const owner = await fs.stat(workspaceDir);
  if (owner.uid === 0) return;
  for (const dir of created.dirs ?? []) await fs.lchown(dir, owner.uid, owner.gid);
  await created.file?.chown(owner.uid, owner.gid);
}

/** `mkdir -p` that says which folders it made (outermost first), for giveToWorkspaceOwner. */
export async function makeParents(dir: string): Promise<string[]> {
  const first = await fs.mkdir(dir, { recursive: true });
  if (!first) return [];
  const made = [dir];
  for (let at = dir; at !== first && path.dirname(at) !== at; ) {
    at = path.dirname(at);
    made.unshift(at);
  }
  return made;
}
