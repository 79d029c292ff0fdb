/**
 * Loom's audit actions. `log` adds a line to the run's audit trail (the ledger row is the record);
 * `save_json` writes the event context to a file inside the agent's workspace, never outside it.
 */
import { constants, promises as fs } from "node:fs";
import path from "node:path";
// The one workspace confinement (symlinks followed), shared with the file tools.
import { giveToWorkspaceOwner, makeParents, resolveInWorkspace, WorkspaceEscapeError } from "@/lib/core/workspace/workspace-path";
import { loomEnvelope, loomLogSummary, savesJsonLines } from "../dialect-contracts";
import type { LogAction, SaveJsonAction } from "../spec";
import { renderTemplate } from "../template";
import { inlineAction, timedAction, type CompiledAction } from "./types";

export function compileLog(action: LogAction): CompiledAction {
  return inlineAction((run) => {
    const subject = typeof run.event.data.toolName === "string" ? ` ${run.event.data.toolName}` : "";
    // Loom's log line says what the event was about (model, turn, stop reason, cost; end reason; error).
    const message = action.message
      ? renderTemplate(action.message, run.templateVars(), run.context())
      : run.hook.dialect === "loom"
        ? loomLogSummary(run.event)
        : `${run.event.type}${subject}`;
    return { verdict: "allow", reason: `logged: ${message}` };
  });
}

export function compileSaveJson(action: SaveJsonAction, timeoutMs: number): CompiledAction {
  return timedAction(timeoutMs, async (run) => {
    const workspace = run.event.workspaceDir;
    if (!workspace) return { failure: "save_json needs the agent's workspace directory, and this event has none" };
    const relative = renderTemplate(action.path, run.templateVars(), run.context());
    try {
      const dirs = await makeParents(path.dirname(await resolveInWorkspace(workspace, relative)));
      // Checked again after mkdir, then O_NOFOLLOW: a symlink planted in between is not followed.
      const target = await resolveInWorkspace(workspace, relative);
      // Loom appends one JSON line per event (its envelope); Hookplane writes one pretty record.
      const lines = savesJsonLines(run.hook.dialect);
      const mode = lines ? constants.O_APPEND : constants.O_TRUNC;
      const handle = await fs.open(target, constants.O_WRONLY | constants.O_CREAT | mode | constants.O_NOFOLLOW, 0o644);
      try {
        await giveToWorkspaceOwner(workspace, { dirs, file: handle });
        const text = lines ? `${JSON.stringify(loomEnvelope(run.event, run.context()))}\n` : `${JSON.stringify(run.context(), null, 2)}\n`;
        await handle.writeFile(text);
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (error instanceof WorkspaceEscapeError) return { failure: `save_json path ${relative} is outside the agent's workspace` };
      throw error;
    }
    return { verdict: "allow", reason: savesJsonLines(run.hook.dialect) ? `appended the event to ${relative}` : `saved context to ${relative}` };
  });
}
