/**
 * The stream hub: WebSocket subscribers by topic (`run:<id>`, `runs`, `approvals`), fed by
 * LISTEN. Run events are delivered by reading the stored rows after each subscriber's last seq,
 * so replay (`after`) and live delivery are one mechanism: no gap, no duplicate, in order.
 * A socket lives only as long as the credential it was opened with: an access notice (sign-out,
 * revoked token, demoted or removed user) closes it in every process, and every subscription
 * rechecks the credential first.
 *
 * A socket acts in one project, its principal's: `run:<id>` of another project's run is answered
 * "not found" (like a run that does not exist, so nothing tells it exists), and the `runs` and
 * `approvals` topics carry only that project's rows. A socket whose role in its project changes,
 * or whose membership ends, is closed.
 */
import type { WebSocket } from "ws";
import { trackSubscribers } from "@/lib/platform/metrics/metrics-registry";
import type { DbHandle } from "@/db/client";
import { listRunHookInvocations } from "@/db/queries/hook-invocations";
import { listRunEventsAfter } from "@/db/queries/run-events";
import { getRun } from "@/db/queries/runs";
import { roleAtLeast, type Principal } from "@/lib/platform/auth/roles";
import { forgetCredentials } from "@/db/queries/token-cache";
import { logger } from "@/lib/platform/logger";
import { CHANNELS, type AccessNotice, type ApprovalNotice, type RunEventsNotice, type RunNotice } from "@/db/notify-channels";
import { clientMessageSchema, serialize, type ServerMessage } from "./protocol";

const PAGE = 500;
export const MAX_TOPICS = 200;
/**
 * Close codes the client can tell apart: sign in again; reconnect with the new role; or this
 * socket's project is closed to its user, who still has others (the page shows what they can no
 * longer see, so it stops rather than reconnecting into another project under it).
 */
export const CLOSE_ACCESS_ENDED = 4401;
export const CLOSE_ROLE_CHANGED = 4403;
export const CLOSE_PROJECT_ENDED = 4404;

/** What a socket stands on, so an access notice can find it and the hub can check it again. */
export interface SocketGrounds {
  /** SHA-256 of the session cookie, when a session opened the socket. */
  sessionHash?: string;
  /** The principal the credential grants now in the socket's project; undefined once it no longer holds. */
  recheck(): Promise<Principal | undefined>;
  /** Whether the credential still opens another project (asked once `recheck` found none). */
  holdsElsewhere?(): Promise<boolean>;
}

interface Subscriber {
  socket: WebSocket;
  principal: Principal;
  grounds?: SocketGrounds;
  /** run id → last seq delivered to this socket */
  runs: Map<string, number>;
  /** run id → id of the last ledger row delivered, for runs subscribed with `afterLedger` */
  ledger: Map<string, number>;
  topics: Set<string>;
  /** Client messages are handled one at a time, in order, since subscribing awaits a recheck. */
  inbox: Promise<void>;
}

export interface HubOptions {
  /** How often every socket's credential is checked again (expired sessions, a missed notice). */
  recheckEveryMs?: number;
}

/** A row a topic carries: sent only to the sockets of its project. */
export type ProjectRow = { projectId: string } & Record<string, unknown>;

/** Readers of the rows a notice names, in any project (the hub picks each row's audience). */
export interface HubReaders {
  readRun?(runId: string): Promise<ProjectRow | undefined>;
  readApproval?(approvalId: string): Promise<ProjectRow | undefined>;
}

export class StreamHub {
  private subscribers = new Set<Subscriber>();
  /** run id → pump in flight, so one read serves every notice that arrives meanwhile */
  private pumping = new Map<string, { again: boolean }>();
  /** row key → read in flight; `also` are new subscribers owed the current row */
  private rowPumps = new Map<string, { again: boolean; also: Set<Subscriber> }>();
  private unlisten: (() => Promise<void>)[] = [];
  private sweep?: ReturnType<typeof setInterval>;
  /** Stops counting this hub's subscribers in hookplane_websocket_subscribers. */
  private untrack?: () => void;

  constructor(
    private readonly handle: DbHandle,
    private readonly readers: HubReaders = {},
    private readonly options: HubOptions = {},
  ) {}

  async start(): Promise<void> {
    this.unlisten.push(
      await this.handle.listen(CHANNELS.runEvents, (payload) => {
        const notice = safeJson<RunEventsNotice>(payload);
        if (notice?.runId) this.pump(notice.runId);
      }),
      await this.handle.listen(CHANNELS.runs, (payload) => {
        const notice = safeJson<RunNotice>(payload);
        if (notice?.runId) this.broadcastRow("runs", "run", notice.runId, () => this.readers.readRun?.(notice.runId));
      }),
      await this.handle.listen(CHANNELS.approvals, (payload) => {
        const notice = safeJson<ApprovalNotice>(payload);
        if (notice?.approvalId) {
          this.broadcastRow("approvals", "approval", notice.approvalId, () => this.readers.readApproval?.(notice.approvalId));
        }
      }),
      await this.handle.listen(CHANNELS.access, (payload) => {
        const notice = safeJson<AccessNotice>(payload);
        // Every cached credential of this process is read again (credential-cache.ts).
        forgetCredentials();
        if (notice) for (const sub of this.subscribers) if (standsOn(sub, notice)) void this.recheck(sub);
      }),
    );
    this.sweep = setInterval(() => {
      for (const sub of this.subscribers) void this.recheck(sub);
    }, this.options.recheckEveryMs ?? 60_000);
    this.sweep.unref();
    this.untrack = trackSubscribers(() => this.subscribers.size);
  }

  async stop(): Promise<void> {
    this.untrack?.();
    clearInterval(this.sweep);
    for (const stop of this.unlisten.splice(0)) await stop().catch(() => {});
    for (const sub of this.subscribers) sub.socket.close(1001, "server shutting down");
    this.subscribers.clear();
  }

  get size(): number {
    return this.subscribers.size;
  }

  /** `grounds` ties the socket to its credential; without them it lives until it closes. */
  attach(socket: WebSocket, principal: Principal, grounds?: SocketGrounds): void {
    const sub: Subscriber = { socket, principal, grounds, runs: new Map(), ledger: new Map(), topics: new Set(), inbox: Promise.resolve() };
    this.subscribers.add(sub);
    socket.on("close", () => this.subscribers.delete(sub));
    socket.on("error", () => this.subscribers.delete(sub));
    socket.on("message", (raw) => {
      sub.inbox = sub.inbox.then(() => this.onMessage(sub, raw.toString())).catch((error) => logger.warn({ err: error }, "stream message failed"));
    });
    this.send(sub, { type: "hello", role: principal.role, project: principal.projectSlug });
  }

  /**
   * Checks the socket's credential again; closes the socket when it has ended or now grants
   * another role or another project (the client reconnects and gets the new one). Fails closed.
   */
  private async recheck(sub: Subscriber): Promise<boolean> {
    if (!sub.grounds) return true;
    let now: Principal | undefined;
    try {
      now = await sub.grounds.recheck();
    } catch (error) {
      logger.warn({ err: error }, "stream credential recheck failed; closing the socket");
    }
    if (now && now.role === sub.principal.role && now.projectId === sub.principal.projectId) return true;
    this.subscribers.delete(sub);
    const elsewhere = !now && (await sub.grounds.holdsElsewhere?.().catch(() => false));
    if (sub.socket.readyState === sub.socket.OPEN || sub.socket.readyState === sub.socket.CONNECTING) {
      if (now) sub.socket.close(CLOSE_ROLE_CHANGED, "role changed: reconnect");
      else if (elsewhere) sub.socket.close(CLOSE_PROJECT_ENDED, `no longer a member of project ${sub.principal.projectSlug}`);
      else sub.socket.close(CLOSE_ACCESS_ENDED, "signed out or revoked");
    }
    return false;
  }

  private async onMessage(sub: Subscriber, raw: string): Promise<void> {
    const parsed = clientMessageSchema.safeParse(safeJson(raw));
    if (!parsed.success) {
      this.send(sub, { type: "error", message: parsed.error.issues.map((i) => `${i.path.join(".") || "message"}: ${i.message}`).join("; ") });
      return;
    }
    const msg = parsed.data;
    if (msg.type === "ping") return this.send(sub, { type: "pong" });
    if (msg.type === "unsubscribe") {
      sub.topics.delete(msg.topic);
      if (msg.topic.startsWith("run:")) {
        sub.runs.delete(msg.topic.slice(4));
        sub.ledger.delete(msg.topic.slice(4));
      }
      return;
    }
    // A subscription stands on the credential as it is now, not as it was at the upgrade.
    if (!(await this.recheck(sub))) return;
    // Every topic is read-only data; viewers may watch everything.
    if (!roleAtLeast(sub.principal.role, "viewer")) return this.send(sub, { type: "error", message: "forbidden" });
    // One socket watches a page's worth of runs, not the whole history: its memory stays bounded.
    if (!sub.topics.has(msg.topic) && sub.topics.size >= MAX_TOPICS) {
      return this.send(sub, { type: "error", message: `at most ${MAX_TOPICS} topics per connection; unsubscribe from one first` });
    }
    const runId = msg.topic.startsWith("run:") ? msg.topic.slice(4) : undefined;
    // Another project's run is not found, the same answer as no run at all.
    if (runId && !(await getRun(this.handle.db, { projectId: sub.principal.projectId, id: runId }))) {
      return this.send(sub, { type: "error", message: `run ${runId} not found in project ${sub.principal.projectSlug}` });
    }
    sub.topics.add(msg.topic);
    this.send(sub, { type: "subscribed", topic: msg.topic });
    if (runId) {
      sub.runs.set(runId, msg.after ?? 0);
      if (msg.afterLedger !== undefined) sub.ledger.set(runId, msg.afterLedger);
      else sub.ledger.delete(runId);
      this.pump(runId);
      // The run's current state, read after the subscription began, so no later change is missed.
      this.broadcastRow("runs", "run", runId, () => this.readers.readRun?.(runId), sub);
    }
  }

  /**
   * Delivers every stored event after each subscriber's last seq, in order, until caught up, then
   * the ledger rows written since (a run's rows are written with its events, or with nothing else
   * when an approval settles: either commit notifies).
   */
  private pump(runId: string): void {
    const inFlight = this.pumping.get(runId);
    if (inFlight) {
      inFlight.again = true;
      return;
    }
    const state = { again: false };
    this.pumping.set(runId, state);
    void (async () => {
      try {
        do {
          state.again = false;
          await this.deliverRun(runId);
        } while (state.again);
      } catch (error) {
        logger.warn({ err: error, runId }, "stream pump failed");
      } finally {
        this.pumping.delete(runId);
      }
    })();
  }

  private async deliverRun(runId: string): Promise<void> {
    await this.deliverEvents(runId);
    await this.deliverLedger(runId);
  }

  private deliverEvents(runId: string): Promise<void> {
    return this.follow(
      runId,
      (s) => s.runs,
      (from) => listRunEventsAfter(this.handle.db, { runId, after: from, limit: PAGE }),
      (rows, watchers) => {
        for (const row of rows) {
          const message = serialize({ type: "event", runId, seq: row.seq, event: { type: row.type, ts: row.ts.toISOString(), data: row.data } });
          for (const sub of watchers) {
            const last = sub.runs.get(runId);
            if (last === undefined || row.seq !== last + 1) continue;
            sub.runs.set(runId, row.seq);
            sub.socket.send(message);
          }
        }
      },
    );
  }

  /** Ledger rows after each ledger subscriber's last id, a page a message. */
  private deliverLedger(runId: string): Promise<void> {
    return this.follow(
      runId,
      (s) => s.ledger,
      (from) => listRunHookInvocations(this.handle.db, { runId, after: from, limit: PAGE }),
      (rows, watchers) => {
        const streamed = rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }));
        for (const sub of watchers) {
          const last = sub.ledger.get(runId);
          if (last === undefined) continue;
          const fresh = streamed.filter((row) => row.id > last);
          if (fresh.length === 0) continue;
          sub.ledger.set(runId, fresh[fresh.length - 1].id);
          this.send(sub, { type: "ledger", runId, rows: fresh });
        }
      },
    );
  }

  /**
   * Pages through what a run's followers (by one of their cursors) have not had yet, from the
   * lowest cursor among them, handing each page to `deliver`, until caught up.
   */
  private async follow<R>(
    runId: string,
    cursors: (sub: Subscriber) => Map<string, number>,
    read: (from: number) => Promise<R[]>,
    deliver: (rows: R[], watchers: Subscriber[]) => void,
  ): Promise<void> {
    for (;;) {
      const watchers = [...this.subscribers].filter((s) => cursors(s).has(runId));
      if (watchers.length === 0) return;
      const rows = await read(Math.min(...watchers.map((s) => cursors(s).get(runId)!)));
      if (rows.length === 0) return;
      deliver(rows, watchers);
      if (rows.length < PAGE) return;
    }
  }

  /**
   * Reads the row a notice names and sends it to the topic's subscribers. Reads of one row are
   * serialized and coalesced, so the last message a client gets was read after the last change
   * (a slow earlier read can never overwrite a newer state).
   */
  private broadcastRow(topic: string, type: string, key: string, read: () => Promise<ProjectRow | undefined> | undefined, also?: Subscriber): void {
    const pumpKey = `${topic}:${key}`;
    const inFlight = this.rowPumps.get(pumpKey);
    if (inFlight) {
      inFlight.again = true;
      if (also) inFlight.also.add(also);
      return;
    }
    const state = { again: false, also: new Set<Subscriber>(also ? [also] : []) };
    this.rowPumps.set(pumpKey, state);
    void (async () => {
      try {
        do {
          state.again = false;
          const extra = [...state.also];
          state.also.clear();
          const watchers = [...new Set([...this.subscribers].filter((s) => s.topics.has(topic)).concat(extra))];
          if (watchers.length === 0) continue;
          const row = await read();
          if (!row) continue;
          const message = JSON.stringify({ type, [type]: row });
          for (const sub of watchers) {
            if (sub.principal.projectId === row.projectId && sub.socket.readyState === sub.socket.OPEN) sub.socket.send(message);
          }
        } while (state.again);
      } catch (error) {
        logger.warn({ err: error, topic }, "stream broadcast failed");
      } finally {
        this.rowPumps.delete(pumpKey);
      }
    })();
  }

  private send(sub: Subscriber, message: ServerMessage): void {
    if (sub.socket.readyState === sub.socket.OPEN) sub.socket.send(serialize(message));
  }
}

function standsOn(sub: Subscriber, notice: AccessNotice): boolean {
  const { principal, grounds } = sub;
  return (
    (notice.userId !== undefined && principal.userId === notice.userId) ||
    (notice.tokenId !== undefined && principal.kind === "token" && principal.id === notice.tokenId) ||
    (notice.sessionHash !== undefined && grounds?.sessionHash === notice.sessionHash)
  );
}

function safeJson<T = unknown>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
