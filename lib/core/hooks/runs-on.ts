/**
 * Where a hook runs (issue 28): Hookplane's server, or the machine the agent runs on. A command hook
 * imported from a coding agent's own settings (Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor)
 * ran on the developer's machine, in the project folder, with that agent's payload: it keeps running
 * there, written into the settings `hookplane install` puts next to the bridge, and reports its
 * outcome to the run. The bridge's dispatch on the server therefore leaves it out: run on the server
 * it would find no project folder, and with code execution off it would allow every call while the
 * list showed a guard. For Hookplane's own agents the agent runs on the server, so there it runs
 * like any command hook.
 */
export const RUNS_ON = ["server", "agent"] as const;
export type RunsOn = (typeof RUNS_ON)[number];

/**
 * A hook as far as where it runs goes. The chain functions take any such list and give back the
 * same kind, so this module needs neither the spec (which reads RUNS_ON) nor the runtime's types.
 */
type Placed = { runsOn?: RunsOn };

export const runsOnAgentMachine = (hook: Placed): boolean => hook.runsOn === "agent";

const bridgedChains = new WeakMap<Placed[], Placed[]>();
const agentMachineChains = new WeakMap<Placed[], Placed[]>();

/** The hooks of a chain that run on the agent's machine (their outcomes come back as reports). Cached by identity. */
export function hooksOnAgentMachine<Hook extends Placed>(hooks: Hook[]): Hook[] {
  let chain = agentMachineChains.get(hooks) as Hook[] | undefined;
  if (!chain) {
    chain = hooks.filter(runsOnAgentMachine);
    agentMachineChains.set(hooks, chain);
  }
  return chain;
}

/**
 * The hooks the server runs for a bridged session: all but those that run on the agent's machine.
 * Cached by the list's identity, so the compiled chain (cached the same way) is reused per call.
 */
export function hooksRunByServerForBridge<Hook extends Placed>(hooks: Hook[]): Hook[] {
  let chain = bridgedChains.get(hooks) as Hook[] | undefined;
  if (!chain) {
    chain = hooks.some(runsOnAgentMachine) ? hooks.filter((hook) => !runsOnAgentMachine(hook)) : hooks;
    bridgedChains.set(hooks, chain);
  }
  return chain;
}
