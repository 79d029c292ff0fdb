import Link from "next/link";
import type { ReactNode } from "react";
import { CommandBlock } from "@/components/ui/command-block";
import { CODING_AGENT_GUIDES, connectCommands, type CodingAgent, type HookFile } from "@/lib/features/bridge/connect-instructions";
import { ExportedSettings } from "./exported-settings";
import { FirstEventCheck } from "./first-event-check";

function Step({ n, title, children, testId }: { n: number; title: ReactNode; children: ReactNode; testId: string }) {
  return (
    <li className="relative pl-11" data-testid={testId}>
      <span
        className="absolute left-0 top-0 flex h-7 w-7 items-center justify-center rounded-full bg-indigo-600 text-xs font-semibold text-white dark:bg-indigo-500"
        aria-hidden="true"
      >
        {n}
      </span>
      <h2 className="text-sm font-semibold leading-7">{title}</h2>
      <div className="mt-2 space-y-3 text-sm text-zinc-600 dark:text-zinc-400">{children}</div>
    </li>
  );
}

const Code = ({ children }: { children: ReactNode }) => <code className="rounded bg-zinc-100 px-1 py-0.5 font-mono text-xs text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200">{children}</code>;

function FileChoice({ file }: { file: HookFile }) {
  return (
    <li>
      <Code>{file.path}</Code>{" "}
      {file.reach === "project" ? "in the project: its sessions only, and shared with everyone who works in it once committed." : "for you: every project on this machine."}
      {file.note && <span className="block text-xs text-zinc-500">{file.note}</span>}
    </li>
  );
}

export interface ConnectStepsProps {
  agent: { id: string; name: string };
  codingAgent: CodingAgent;
  /** The signed-in person: whose credential the machine gets and whose events the check waits for. */
  person: { userId: string; label: string };
  /** Where people reach this Hookplane (HOOKPLANE_PUBLIC_URL). */
  publicUrl: string;
  /** The project's enabled hooks that reach this agent (its own and the global ones). */
  hookCount: number;
}

/**
 * The four steps of connecting one coding agent on one machine, each command ready to copy:
 * the `hookplane` command, the machine signed in as the person, the agent's settings in the
 * coding agent's hook file, and a live check that the first event arrived.
 */
export function ConnectSteps({ agent, codingAgent, person, publicUrl, hookCount }: ConnectStepsProps) {
  const guide = CODING_AGENT_GUIDES[codingAgent];
  const commands = connectCommands(publicUrl);
  return (
    <ol className="max-w-3xl space-y-8" data-testid="connect-steps">
      <Step n={1} title="Put the hookplane command on your PATH" testId="connect-step-install">
        <p>In a checkout of Hookplane (the version this server runs), link its command and check that it answers:</p>
        <CommandBlock text={commands.install} label="Copy the install commands" testId="connect-install" />
        <p className="text-xs text-zinc-500">
          Or leave it where it is and call it by its path: <Code>node /path/to/hookplane/bin/hookplane.cjs</Code> wherever the commands and settings below say{" "}
          <Code>hookplane</Code>. It needs Node 20 or newer and nothing else.
        </p>
      </Step>

      <Step n={2} title="Sign this machine in as you" testId="connect-step-login">
        <CommandBlock text={commands.login} label="Copy the login command" testId="connect-login" />
        <p>
          It prints a link and a code: open the link, signed in as {person.label}, and approve. The command keeps a bridge credential of your own for this OS user, and every hook call{" "}
          {guide.label} makes goes with it: recorded as yours, and reaching nothing but its hook events. <Code>hookplane logout</Code> revokes it.
        </p>
        <details className="rounded-md border border-zinc-200 px-3 py-2 dark:border-zinc-800" data-testid="connect-headless">
          <summary className="cursor-pointer text-zinc-700 dark:text-zinc-300">In CI, or on a machine nobody signs in on</summary>
          <div className="mt-2 space-y-2">
            <p>
              Create a bridge credential in{" "}
              <Link href="/settings/credentials#bridge-credentials" className="text-indigo-600 underline underline-offset-2 dark:text-indigo-400">
                Settings
              </Link>{" "}
              and set it where {guide.label} runs:
            </p>
            <CommandBlock text={commands.headless} label="Copy the environment variables" testId="connect-env" />
          </div>
        </details>
      </Step>

      <Step n={3} title={`Paste ${agent.name}'s ${guide.label} settings`} testId="connect-step-settings">
        <p>Into one of these files (if it has hooks already, add these events to its hooks):</p>
        <ul className="list-disc space-y-1 pl-5" data-testid="connect-settings-files">
          {guide.files.map((file) => (
            <FileChoice key={file.path} file={file} />
          ))}
        </ul>
        <ExportedSettings codingAgent={codingAgent} agentName={agent.name} hookCount={hookCount} />
        <p>{guide.takesEffect}</p>
      </Step>

      <Step n={4} title="Check the connection" testId="connect-step-check">
        <FirstEventCheck agentId={agent.id} userId={person.userId} person={person.label} source={codingAgent} codingAgentLabel={guide.label} />
      </Step>
    </ol>
  );
}
