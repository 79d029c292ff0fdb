/**
 * The save-time half of workspace confinement, for paths an operator sets before any workspace
 * exists (an agent's `metadataFile`): relative, and never climbing above where it starts. The
 * run-time half, which also follows symlinks, is resolveInWorkspace (workspace-path.ts); every
 * path is checked by both. Plain string work, so forms and schemas can use it anywhere.
 */
export function workspacePathProblem(requested: string): string | undefined {
  if (requested.includes("\0")) return "a path cannot contain a NUL character";
  if (requested.startsWith("/")) return `"${requested}" is an absolute path: give a path inside the agent's workspace`;
  let depth = 0;
  for (const part of requested.split("/")) {
    if (part === "" || part === ".") continue;
    depth += part === ".." ? -1 : 1;
    if (depth < 0) return `"${requested}" leads outside the agent's workspace`;
  }
  return undefined;
}
