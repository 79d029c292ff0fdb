/**
 * Loom's audit actions. `log` adds a line to the run's audit trail (the ledger row is the record);
 * `save_json` writes the event context to a file inside the agent's workspace, never outside it.
 */
import { mkdir, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import type { LogAction, SaveJsonAction } from "../spec";
import { renderTemplate } from "../template";
import type { CompiledAction } from "./types";

export function compileLog(action: LogAction): CompiledAction {
  return {
    secretNames: [],
    executor: {
      async: false,
      run(run) {
        const subject = typeof run.event.data.toolName === "string" ? ` ${run.event.data.toolName}` : "";
        const message = action.message
          ? renderTemplate(action.message, run.templateVars(), run.context())
          : `${run.event.type}${subject}`;
        return { verdict: "allow", reason: `logged: ${message}` };
      },
    },
  };
}

export function compileSaveJson(action: SaveJsonAction, timeoutMs: number): CompiledAction {
  return {
    secretNames: [],
    executor: {
      async: true,
      timeoutMs,
      async run(run) {
        const workspace = run.event.workspaceDir;
        if (!workspace) return { failure: "save_json needs the agent's workspace directory, and this event has none" };
        const relative = renderTemplate(action.path, run.templateVars(), run.context());
        const target = await confinedPath(workspace, relative);
        if (!target) return { failure: `save_json path ${relative} is outside the agent's workspace` };
        await mkdir(path.dirname(target), { recursive: true });
        if (!(await confinedPath(workspace, path.relative(workspace, target)))) {
          return { failure: `save_json path ${relative} resolves outside the agent's workspace` };
        }
        await writeFile(target, `${JSON.stringify(run.context(), null, 2)}\n`);
        return { verdict: "allow", reason: `saved context to ${relative}` };
      },
    },
  };
}

/** The absolute path of `relative` if it stays inside `root` after resolving symlinks so far. */
async function confinedPath(root: string, relative: string): Promise<string | undefined> {
  if (path.isAbsolute(relative)) return undefined;
  const realRoot = await realpath(root).catch(() => path.resolve(root));
  const target = path.resolve(realRoot, relative);
  const existingParent = await realpath(path.dirname(target)).catch(() => undefined);
  const checked = existingParent ? path.join(existingParent, path.basename(target)) : target;
  const rel = path.relative(realRoot, checked);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? checked : undefined;
}
