"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { inputClass, Options } from "@/components/ui/field";
import { apiFetch, ApiClientError } from "@/lib/platform/api/api-fetch";
import type { HookReplayResponse, HookSampleResponse, HookTrialResponse } from "@/lib/features/hooks/schema";

function errorText(error: unknown): string {
  if (error instanceof ApiClientError) {
    return error.issues?.length ? `${error.message} (${error.issues.map((i) => i.path).join(", ")})` : error.message;
  }
  return String((error as Error)?.message ?? error);
}

const VERDICT_STYLE: Record<string, string> = {
  allow: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300",
  block: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
  skip: "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300",
};

/**
 * Try the hook as it stands in the editor: against a recorded event of a past run (or one typed
 * here), and replayed over the last runs of all the project's agents (or of one) to see where it
 * would have decided otherwise, each difference linked to its run at the event.
 */
export function HookTestPanel({
  spec,
  agent,
  agents = [],
}: {
  spec: Record<string, unknown>;
  /** The agent the draft is scoped to, if any. */
  agent?: { id: string; name: string };
  /** A draft for everyone, a group or a person replays over all the project's agents, or the one picked here. */
  agents?: { id: string; name: string }[];
}) {
  // "" is every agent of the project (own and bridged sessions): the default unless the hook is scoped to one.
  const [pickedAgentId, setPickedAgentId] = useState("");
  const replayAgent = agent ?? agents.find((a) => a.id === pickedAgentId);
  const event = String(spec.event ?? "tool.pre");
  const [payload, setPayload] = useState(() => JSON.stringify(event === "tool.pre" ? { toolName: "write_file", toolInput: { path: "/srv/prod/app.yml" } } : {}, null, 2));
  const [payloadError, setPayloadError] = useState<string>();
  const [runs, setRuns] = useState(20);
  // The window the replayed runs started in, in the browser's time zone (empty: no bound).
  const [since, setSince] = useState("");
  const [until, setUntil] = useState("");
  const hook = { ...spec, id: spec.id || "draft" };

  const samples = useQuery({
    queryKey: ["hook-samples", event, agent?.id],
    queryFn: () => apiFetch<{ items: HookSampleResponse[] }>(`/api/v1/hooks/test/samples?event=${encodeURIComponent(event)}${agent ? `&agent=${agent.id}` : ""}`),
  });

  const trial = useMutation({
    mutationFn: (data: Record<string, unknown>) =>
      apiFetch<HookTrialResponse>("/api/v1/hooks/test", {
        method: "POST",
        body: JSON.stringify({ hook, event: { ...data, type: event, agentName: agent?.name ?? data.agentName, agentId: agent?.id } }),
      }),
  });
  const replay = useMutation({
    mutationFn: () =>
      apiFetch<HookReplayResponse>("/api/v1/hooks/replay", {
        method: "POST",
        body: JSON.stringify({ hook, ...(replayAgent && { agent: replayAgent.id }), runs, ...windowOf(since, until) }),
      }),
  });

  const runTrial = () => {
    try {
      const data = JSON.parse(payload);
      if (!data || typeof data !== "object" || Array.isArray(data)) throw new Error("the event payload is a JSON object");
      setPayloadError(undefined);
      trial.mutate(data);
    } catch (error) {
      setPayloadError((error as Error).message);
    }
  };

  return (
    <section className="max-w-3xl space-y-4 rounded-lg border border-zinc-200 bg-white p-5 dark:border-zinc-800 dark:bg-zinc-900" data-testid="hook-test-panel" aria-labelledby="hook-test-title">
      <div>
        <h2 id="hook-test-title" className="text-sm font-semibold">
          Try this hook
        </h2>
        <p className="text-sm text-zinc-500">
          Runs the hook as the editor shows it, saved or not, on a <span className="font-mono">{event}</span> event. Nothing is stored; approvals ask nobody, their timeout policy answers.
        </p>
      </div>
      <label className="block text-xs">
        <span className="mb-1 block text-zinc-500">A recorded event from a past run</span>
        <select
          className={inputClass}
          defaultValue=""
          data-testid="hook-test-sample"
          onChange={(e) => {
            const sample = samples.data?.items[Number(e.target.value)];
            if (sample) setPayload(JSON.stringify(sample.data, null, 2));
          }}
        >
          <option value="" disabled>
            {samples.isPending ? "Loading…" : samples.data?.items.length ? "Pick an event…" : `No ${event} event recorded yet${agent ? ` for ${agent.name}` : ""}`}
          </option>
          {samples.data?.items.map((s, i) => (
            <option key={`${s.runId}:${s.seq}`} value={i}>
              {new Date(s.ts).toLocaleString()} · {s.agentName} · #{s.seq} {typeof s.data.toolName === "string" ? s.data.toolName : ""}
            </option>
          ))}
        </select>
      </label>
      <label className="block text-xs">
        <span className="mb-1 block text-zinc-500">Event payload (JSON; edit freely)</span>
        <textarea className={`${inputClass} font-mono`} rows={6} value={payload} onChange={(e) => setPayload(e.target.value)} data-testid="hook-test-payload" />
      </label>
      {payloadError && (
        <p role="alert" className="text-xs text-red-600">
          {payloadError}
        </p>
      )}
      <Button type="button" onClick={runTrial} disabled={trial.isPending} data-testid="hook-test-run">
        {trial.isPending ? "Running…" : "Run test"}
      </Button>
      {trial.isError && (
        <p role="alert" className="text-sm text-red-600" data-testid="hook-test-error">
          {errorText(trial.error)}
        </p>
      )}
      {trial.data && (
        <div className="space-y-2 text-sm" data-testid="hook-test-result">
          <p>
            Verdict{" "}
            <span className={`rounded px-2 py-0.5 text-xs font-medium ${VERDICT_STYLE[trial.data.verdict] ?? ""}`} data-testid="hook-test-verdict">
              {trial.data.verdict}
            </span>
            {trial.data.reason && <span className="ml-2">{trial.data.reason}</span>}
          </p>
          {trial.data.context.length > 0 && <p>Context for the model: {trial.data.context.join(" · ")}</p>}
          {trial.data.output && <pre className="rounded bg-zinc-50 p-2 font-mono text-xs dark:bg-zinc-950">{trial.data.output}</pre>}
          <pre className="max-h-64 overflow-auto rounded bg-zinc-50 p-2 font-mono text-xs dark:bg-zinc-950" data-testid="hook-test-ledger">
            {JSON.stringify(trial.data.ledger, null, 2)}
          </pre>
        </div>
      )}

      <div className="space-y-2 border-t border-zinc-100 pt-4 dark:border-zinc-800">
        <div className="flex flex-wrap items-end gap-2">
          {!agent && (
            <label className="text-xs">
              <span className="mb-1 block text-zinc-500">Replay over the runs of</span>
              <select className={inputClass} value={pickedAgentId} onChange={(e) => setPickedAgentId(e.target.value)} data-testid="hook-replay-agent">
                <Options choices={[{ value: "", label: "All agents" }, ...agents.map((a) => ({ value: a.id, label: a.name }))]} />
              </select>
            </label>
          )}
          <label className="text-xs">
            <span className="mb-1 block text-zinc-500">{agent ? `Replay over the last runs of ${agent.name}` : "Last runs"}</span>
            <input type="number" min={1} max={200} value={runs} onChange={(e) => setRuns(Number(e.target.value) || 1)} className={`${inputClass} w-24`} aria-label="Number of runs" />
          </label>
          <label className="text-xs">
            <span className="mb-1 block text-zinc-500">Started from</span>
            <input type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} className={inputClass} data-testid="hook-replay-since" />
          </label>
          <label className="text-xs">
            <span className="mb-1 block text-zinc-500">until</span>
            <input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} className={inputClass} data-testid="hook-replay-until" />
          </label>
          <Button type="button" variant="secondary" onClick={() => replay.mutate()} disabled={replay.isPending} data-testid="hook-replay-run">
            {replay.isPending ? "Replaying…" : "Replay"}
          </Button>
        </div>
        {replay.isError && (
          <p role="alert" className="text-sm text-red-600">
            {errorText(replay.error)}
          </p>
        )}
        {replay.data &&
          (replay.data.differences.length === 0 ? (
            <p className="text-sm text-zinc-500" data-testid="hook-replay-summary">
              No difference: {replay.data.events} events over {replay.data.runs} runs{agentsText(replay.data.agents)} would have gone the same way.
            </p>
          ) : (
            <div data-testid="hook-replay-summary">
              <p className="text-sm">
                {replay.data.differences.length} of {replay.data.events} events over {replay.data.runs} runs{agentsText(replay.data.agents)} would go differently:
              </p>
              {replay.data.byPerson.some((p) => p.actor) && (
                <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400" data-testid="hook-replay-people">
                  Whose calls change:{" "}
                  {replay.data.byPerson.map((p, i) => (
                    <span key={p.actor ?? ""}>
                      {i > 0 && ", "}
                      <span className="font-medium">{p.actor ?? "the project's own agents"}</span> ({p.calls})
                    </span>
                  ))}
                </p>
              )}
              <ul className="mt-1 space-y-1 text-xs">
                {replay.data.differences.map((d) => (
                  <li key={`${d.runId}:${d.seq}`} className="font-mono" data-testid="hook-replay-difference" data-agent={d.agent.name}>
                    <Link href={d.runPath} className="text-indigo-600 hover:underline" data-testid="hook-replay-link">
                      {d.runId.slice(0, 8)}#{d.seq}
                    </Link>{" "}
                    <span className="text-zinc-600 dark:text-zinc-400">{d.agent.name} · </span>
                    {d.actor && <span className="text-zinc-600 dark:text-zinc-400">{d.actor} · </span>}
                    {d.toolName} · was {d.before}
                    {d.blockedBefore ? ` (${d.blockedBefore})` : ""} → now {d.after}
                    {d.reason ? `: ${d.reason}` : ""}
                  </li>
                ))}
              </ul>
            </div>
          ))}
      </div>
    </section>
  );
}

/** " of 3 agents (writer, deployer, …)" when more than one agent's runs were replayed. */
function agentsText(agents: { name: string }[]): string {
  if (agents.length < 2) return agents.length === 1 ? ` of ${agents[0].name}` : "";
  const names = agents.slice(0, 4).map((a) => a.name).join(", ");
  return ` of ${agents.length} agents (${names}${agents.length > 4 ? ", …" : ""})`;
}

/** A `datetime-local` window as the replay API takes it (ISO instants); empty bounds are left out. */
function windowOf(since: string, until: string): { since?: string; until?: string } {
  const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);
  return { ...(since && { since: iso(since) }), ...(until && { until: iso(until) }) };
}
