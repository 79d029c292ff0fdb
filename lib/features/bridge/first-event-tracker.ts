/**
 * Which event is the first one a person's coding agent sent for an agent since a page opened:
 * the connect page's live check, without the socket (use-first-bridged-event.ts wires it to the
 * stream hub), so what counts is plain to read and to test.
 *
 * The stream gives two things: run rows (the `runs` topic: every changed run of the project) and
 * a run's events after a seq (`run:<id>`). A run counts when it is this agent's, from this coding
 * agent, of this person; its events count after the seq it had when the page opened: every event
 * of a run created since, only the new ones of a run that was already there.
 */

/** The fields of a run row (GET /api/v1/runs, the `runs` topic) the check reads. */
export interface BridgedRun {
  id: string;
  agentId: string;
  source: string;
  status: string;
  lastSeq: number;
  createdAt: string;
  actor?: { userId?: string; label: string; machine?: { host?: string } };
}

export interface SessionsBefore {
  /** The person's runs of this agent and coding agent as they were when the page opened. */
  runs: BridgedRun[];
  /** The server's time then (ms): a run created since is new, and all its events count. */
  since: number;
}

export interface ArrivedEvent {
  runId: string;
  seq: number;
  type: string;
  ts: string;
  data: Record<string, unknown>;
  /** As the person's CLI reported it; undefined when nothing did (Claude Code's http hook). */
  host?: string;
}

/** A run's events to stream, after this seq. */
export interface RunStream {
  runId: string;
  after: number;
}

export class FirstEventTracker {
  /** run id → the seq its events count after. */
  private readonly countAfter: Map<string, number>;
  private readonly rows: Map<string, BridgedRun>;
  /** Runs whose events are streamed. */
  private readonly streamed = new Set<string>();
  private found?: ArrivedEvent;

  constructor(
    private readonly whose: { agentId: string; userId: string; source: string },
    private readonly before: SessionsBefore,
  ) {
    this.countAfter = new Map(before.runs.map((run) => [run.id, run.lastSeq]));
    this.rows = new Map(before.runs.map((run) => [run.id, run]));
    // Sessions still open when the page opened: an event in one counts, though it may not change
    // its run row (a prompt, say), so no run notice would bring it up.
    for (const run of before.runs) if (run.status !== "finished") this.streamed.add(run.id);
  }

  get arrived(): ArrivedEvent | undefined {
    return this.found;
  }

  /** Every run to stream, from where its events start counting: on (re)connecting. Nothing once found. */
  streams(): RunStream[] {
    if (this.found) return [];
    return [...this.streamed].map((runId) => ({ runId, after: this.countAfter.get(runId) ?? 0 }));
  }

  /** A run row from the stream or the list: the run to start streaming, when it is one. */
  seeRun(run: BridgedRun): RunStream | undefined {
    if (this.found) return undefined;
    if (run.agentId !== this.whose.agentId || run.source !== this.whose.source || run.actor?.userId !== this.whose.userId) return undefined;
    this.rows.set(run.id, run);
    // A run the page did not know: new since it opened (all its events count), or an old one
    // touched again (a session resumed, an idle one closed), whose events so far do not.
    if (!this.countAfter.has(run.id)) this.countAfter.set(run.id, Date.parse(run.createdAt) >= this.before.since ? 0 : run.lastSeq);
    const after = this.countAfter.get(run.id)!;
    // Streamed while open or once it has moved on; a finished run as it was is left alone.
    if (this.streamed.has(run.id) || (run.status === "finished" && run.lastSeq <= after)) return undefined;
    this.streamed.add(run.id);
    return { runId: run.id, after };
  }

  /** An event of a streamed run: the arrived event when it is the first that counts. */
  seeEvent(runId: string, seq: number, event: { type: string; ts: string; data: Record<string, unknown> }): ArrivedEvent | undefined {
    if (this.found) return undefined;
    const after = this.countAfter.get(runId);
    if (after === undefined || seq <= after) return undefined;
    this.found = { runId, seq, type: event.type, ts: event.ts, data: event.data, host: this.rows.get(runId)?.actor?.machine?.host };
    return this.found;
  }

  /** The runs streamed so far, to stop streaming once the event is found. */
  streamedRuns(): string[] {
    return [...this.streamed];
  }
}
