/**
 * `context`: text for the model (AgenTopology `type: prompt`, Loom `additionalContext`). On
 * model.pre the caller puts it into this very call; elsewhere it becomes a reminder on the next one.
 */
import type { ContextAction } from "../spec";
import { renderTemplate } from "../template";
import { inlineAction, type ActionResult, type CompiledAction } from "./types";

export function compileContext(action: ContextAction): CompiledAction {
  const fixed: ActionResult = { verdict: "allow", context: action.text };
  const templated = action.text.includes("{{");
  return inlineAction((run) => (templated ? { verdict: "allow", context: renderTemplate(action.text, run.templateVars(), run.context()) } : fixed));
}
