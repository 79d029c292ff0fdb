/**
 * herdctl's metadata file: a JSON object the agent writes into its workspace, read after each
 * round of tool calls so hooks can see it (`when: metadata.shouldNotify`). The path is the agent's
 * `metadataFile`, confined to the workspace by the one algorithm the file tools use (symlinks
 * followed): a stored path that leads out (saved before paths were checked, or a symlink the agent
 * made) reads nothing, and the server log says why.
 */
import { constants, promises as fs } from "node:fs";
import { logger } from "@/lib/platform/logger";
import { resolveInWorkspace, WorkspaceEscapeError } from "@/lib/core/workspace/workspace-path";

export async function readMetadataFile(workspaceDir: string, file: string): Promise<Record<string, unknown> | undefined> {
  let real: string;
  try {
    real = await resolveInWorkspace(workspaceDir, file);
  } catch (error) {
    if (error instanceof WorkspaceEscapeError) logger.warn({ workspaceDir, metadataFile: file }, `metadataFile refused: ${error.message}`);
    return undefined;
  }
  try {
    // O_NOFOLLOW: a symlink swapped in after the check is not followed.
    const handle = await fs.open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const parsed = JSON.parse(await handle.readFile("utf8"));
      return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : undefined;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}
