/**
 * read_file, write_file and list_files: confined to the workspace (see workspace-path.ts).
 */
import { constants, promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { capOutput } from "./output-cap";
import { defineTool, toolError, toolOutput, type ToolImplementation, type ToolResult } from "@/lib/core/agent/tool-types";
import { WorkspaceEscapeError, giveToWorkspaceOwner, makeParents, resolveInWorkspace, toWorkspaceRelative } from "@/lib/core/workspace/workspace-path";

const LIST_LIMIT = 1000;

/** File-system failures the model can act on become error results; anything else is infrastructure. */
async function asToolResult(requested: string, work: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof WorkspaceEscapeError) return toolError(`refused: ${err.message}`);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return toolError(`no such file or directory: ${requested}`);
    if (code === "EISDIR") return toolError(`is a directory: ${requested}`);
    if (code === "ENOTDIR") return toolError(`not a directory: ${requested}`);
    if (code === "EACCES" || code === "EPERM") return toolError(`permission denied: ${requested}`);
    if (code === "ELOOP") return toolError(`refused: ${requested} is a symbolic link`);
    throw err;
  }
}

// Module-level, so every run's registry shares them (and their JSON Schema, built once).
const readFileInput = z.object({
  path: z.string().min(1).describe("file path relative to the workspace"),
});
const writeFileInput = z.object({
  path: z.string().min(1).describe("file path relative to the workspace"),
  content: z.string().describe("the full new content of the file"),
});
const listFilesInput = z.object({
  path: z.string().default(".").describe("folder relative to the workspace (default: the workspace)"),
  recursive: z.boolean().default(false),
});

export function readFileTool(workspaceDir: string, outputCap: number): ToolImplementation {
  return defineTool({
    name: "read_file",
    retrySafe: true,
    description: "Read a text file from the workspace. Paths are relative to the workspace folder.",
    input: readFileInput,
    run: ({ path: requested }) =>
      asToolResult(requested, async () => {
        const real = await resolveInWorkspace(workspaceDir, requested);
        const handle = await fs.open(real, constants.O_RDONLY);
        try {
          // Read one byte past the cap so capOutput can tell the model the file was longer.
          const buffer = Buffer.alloc(outputCap + 1);
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
          const size = (await handle.stat()).size;
          const text = buffer.subarray(0, Math.min(bytesRead, outputCap)).toString("utf8");
          return toolOutput(
            size > outputCap ? `${text}\n[output truncated: ${size} bytes, showing the first ${outputCap}]` : text,
          );
        } finally {
          await handle.close();
        }
      }),
  });
}

export function writeFileTool(workspaceDir: string): ToolImplementation {
  return defineTool({
    name: "write_file",
    description: "Write (create or replace) a text file in the workspace; parent folders are created.",
    input: writeFileInput,
    run: ({ path: requested, content }) =>
      asToolResult(requested, async () => {
        const real = await resolveInWorkspace(workspaceDir, requested);
        const dirs = await makeParents(path.dirname(real));
        // Re-check after mkdir, then O_NOFOLLOW: a symlink planted in between must not be followed.
        const checked = await resolveInWorkspace(workspaceDir, requested);
        const handle = await fs.open(
          checked,
          constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
          0o644,
        );
        try {
          await giveToWorkspaceOwner(workspaceDir, { dirs, file: handle });
          await handle.writeFile(content, "utf8");
        } finally {
          await handle.close();
        }
        const shown = await toWorkspaceRelative(workspaceDir, checked);
        return toolOutput(`wrote ${Buffer.byteLength(content, "utf8")} bytes to ${shown}`);
      }),
  });
}

export function listFilesTool(workspaceDir: string, outputCap: number): ToolImplementation {
  return defineTool({
    name: "list_files",
    retrySafe: true,
    description:
      "List the entries of a workspace folder, one per line; folders end with '/', symbolic links with '@'.",
    input: listFilesInput,
    run: ({ path: requested, recursive }) =>
      asToolResult(requested, async () => {
        const real = await resolveInWorkspace(workspaceDir, requested);
        const lines: string[] = [];
        // Symbolic links are listed but never descended into: they may lead out of the workspace.
        const walk = async (dir: string, prefix: string): Promise<void> => {
          const entries = await fs.readdir(dir, { withFileTypes: true });
          entries.sort((a, b) => a.name.localeCompare(b.name));
          for (const entry of entries) {
            if (lines.length >= LIST_LIMIT) return;
            const name = prefix + entry.name;
            if (entry.isSymbolicLink()) lines.push(`${name}@`);
            else if (entry.isDirectory()) {
              lines.push(`${name}/`);
              if (recursive) await walk(path.join(dir, entry.name), `${name}/`);
            } else lines.push(name);
          }
        };
        await walk(real, "");
        if (lines.length >= LIST_LIMIT) lines.push(`[listing stopped at ${LIST_LIMIT} entries]`);
        return toolOutput(capOutput(lines.join("\n"), outputCap));
      }),
  });
}
