import { ActorLine } from "@/components/ui/actor-line";
import type { AgentInstall } from "../agent-installs";

const CODING_AGENT_NAMES: Record<string, string> = { "claude-code": "Claude Code", codex: "Codex", "gemini-cli": "Gemini CLI", copilot: "Copilot CLI", cursor: "Cursor" };

/**
 * The machines where `hookplane install` wrote this agent's hooks: who, which host and coding
 * agent, which settings level, the CLI's version and when; those whose settings are not the current
 * export's are flagged, with what to run.
 */
export function AgentInstalls({ installs, agentName }: { installs: AgentInstall[]; agentName: string }) {
  return (
    <section aria-labelledby="installs-title" className="space-y-2" data-testid="agent-installs">
      <h2 id="installs-title" className="text-sm font-semibold">
        Installed on
      </h2>
      {installs.length === 0 ? (
        <p className="text-xs text-zinc-500">
          No machine yet. On each one: <code className="font-mono">hookplane install claude-code --agent {agentName}</code>
        </p>
      ) : (
        <ul className="space-y-2 text-sm">
          {installs.map((install) => (
            <li key={install.id} data-testid="agent-install" data-drifted={install.drifted}>
              <ActorLine label={install.actorLabel} detail={`${install.osUser ? `${install.osUser}@` : ""}${install.host || "unknown host"}`} />
              <div className="text-xs text-zinc-500" title={install.settingsPath}>
                {CODING_AGENT_NAMES[install.codingAgent] ?? install.codingAgent}, {install.level} level, CLI {install.cliVersion || "?"},{" "}
                {install.installedAt.toLocaleString(undefined, { hour12: false })}
              </div>
              {install.drifted && (
                <p className="text-xs font-medium text-amber-700 dark:text-amber-300">
                  drifted: the agent&apos;s hooks changed since; run <code className="font-mono">hookplane install {install.codingAgent} --agent {agentName}</code> again
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
