import type { CodeExecutionStatus } from "@/lib/platform/security/code-execution";

const SANDBOX_TEXT = {
  namespaces: "namespaces (util-linux unshare): own mount, PID, IPC and UTS namespaces; the data directory, other workspaces, the app folder, the server's home and the database socket are hidden; /tmp is private",
  "user-namespaces": "user namespaces (util-linux unshare, unprivileged): own mount and PID namespaces; the data directory, other workspaces, the app folder, the server's home and the database socket are hidden; /tmp is private",
  none: "none: this machine allows no namespaces, so shell steps see the file system as their user does",
} as const;

const ORPHAN_TEXT = {
  "pid-namespace": "the step's PID namespace dies with its worker (parent-death signal), taking every process of the step with it",
  "process-group": "a supervising shell kills the step's process group when its worker dies; a process that leaves the group survives",
  none: "none: setpriv is missing, so a step can outlive its worker",
} as const;

/** Settings' view of the one code-execution switch and the sandbox, from codeExecutionStatus(). */
export function CodeExecutionStatusList({ status }: { status: CodeExecutionStatus }) {
  const { sandbox } = status;
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-[auto_minmax(0,1fr)] [&>dd]:mb-1 [&>dd]:min-w-0 [&>dd]:break-words [&>dt]:break-all sm:[&>dd]:mb-0" data-testid="code-execution-status">
      <dt className="font-mono text-xs">{status.switchName}</dt>
      <dd data-testid="code-execution-switch">
        {status.enabled
          ? "on: an admin's shell tool, command and code hooks, and tool hooks calling the shell run (and can be tried)"
          : "off: nothing runs a process or loads code; such steps are refused with this reason in the ledger or the tool result"}{" "}
        <span className="text-xs text-zinc-500" data-testid="code-execution-source">
          ({status.setInEnvironment ? `set by ${status.switchName}` : "the default: the variable is not set"})
        </span>
      </dd>
      {status.retiredSwitchesSet.length > 0 && (
        <>
          <dt className="text-xs text-amber-700 dark:text-amber-300">ignored</dt>
          <dd className="text-amber-700 dark:text-amber-300" data-testid="code-execution-retired">
            {status.retiredSwitchesSet.join(", ")} {status.retiredSwitchesSet.length === 1 ? "is" : "are"} set but no longer read: {status.switchName} is
            the one switch.
          </dd>
        </>
      )}
      <dt className="text-xs">sandbox</dt>
      <dd data-testid="code-execution-sandbox">{SANDBOX_TEXT[sandbox.kind]}</dd>
      <dt className="text-xs">runs as</dt>
      <dd>{sandbox.runAs ? `${sandbox.runAs.name} (uid ${sandbox.runAs.uid}), no capabilities, no_new_privs` : "the server's own user"}</dd>
      <dt className="text-xs">network</dt>
      <dd>{status.network === "none" ? "none (HOOKPLANE_SHELL_NETWORK=host gives steps the server's network)" : "the server's network"}</dd>
      <dt className="text-xs">no orphans</dt>
      <dd>{ORPHAN_TEXT[sandbox.orphanGuard]}</dd>
      <dt className="text-xs">workspaces</dt>
      <dd className="font-mono text-xs">{status.workspacesDir}</dd>
      {sandbox.notes.length > 0 && (
        <>
          <dt className="text-xs">notes</dt>
          <dd className="text-xs text-zinc-500">{sandbox.notes.join("; ")}</dd>
        </>
      )}
    </dl>
  );
}
