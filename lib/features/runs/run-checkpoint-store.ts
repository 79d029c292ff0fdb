/**
 * The loop's checkpoint as a run stores it: where the loop stands goes on the run row (small, the
 * same size at every step), the transcript goes into run_messages one new message at a time. So
 * saving after the 10,000th step writes what that step added, not the whole run again.
 */
import type { Db } from "@/db/client";
import { CheckpointJson, listRunMessages } from "@/db/queries/run-events";
import type { CheckpointStore, LoopState } from "@/lib/core/agent/loop-state";
import type { ChatMessage } from "@/lib/core/agent/providers/model-provider";
import type { RunEventWriter } from "./run-event-writer";

/** The run row's part: the loop state with each stage's messages replaced by their count. */
type StoredCheckpoint = LoopState & { messageCounts: number[] };

export function createRunCheckpointStore(db: Db, params: { runId: string; stored: unknown; writer: RunEventWriter }): CheckpointStore {
  /** Messages already in run_messages, per stage index. */
  const persisted: number[] = [];

  const stagesOf = (state: LoopState) => [...state.completedStages.map((c) => c.messages), state.stage.messages];

  return {
    async load() {
      const stored = params.stored as StoredCheckpoint | null | undefined;
      if (!stored) return undefined;
      if (!Array.isArray(stored.messageCounts)) return stored; // a checkpoint from before run_messages
      const byStage: ChatMessage[][] = stored.messageCounts.map(() => []);
      for (const row of await listRunMessages(db, { runId: params.runId })) {
        if (row.stage < byStage.length && row.idx < stored.messageCounts[row.stage]) byStage[row.stage][row.idx] = row.message as unknown as ChatMessage;
      }
      byStage.forEach((messages, stage) => {
        if (messages.length !== stored.messageCounts[stage] || messages.includes(undefined as never)) {
          throw new Error(`run ${params.runId}: the stored transcript of stage ${stage} is incomplete`);
        }
        persisted[stage] = messages.length;
      });
      const { messageCounts: _, ...state } = stored;
      state.completedStages = state.completedStages.map((c, i) => ({ ...c, messages: byStage[i] }));
      state.stage = { ...state.stage, messages: byStage[byStage.length - 1] };
      return state;
    },
    async save(state, options) {
      const stages = stagesOf(state);
      const messages: { stage: number; idx: number; message: Record<string, unknown> }[] = [];
      stages.forEach((list, stage) => {
        for (let idx = persisted[stage] ?? 0; idx < list.length; idx++) messages.push({ stage, idx, message: list[idx] as unknown as Record<string, unknown> });
      });
      const checkpoint: StoredCheckpoint = {
        ...state,
        completedStages: state.completedStages.map((c) => ({ ...c, messages: [] })),
        stage: { ...state.stage, messages: [] },
        messageCounts: stages.map((list) => list.length),
      };
      if (options?.durable) await params.writer.flush({ checkpoint, messages });
      // Batched with what follows in this tick; the state goes on changing, so a copy is queued:
      // its JSON, which is what is stored (cheaper than structuredClone and a stringify later).
      else params.writer.stage({ checkpoint: new CheckpointJson(JSON.stringify(checkpoint)), messages });
      stages.forEach((list, stage) => (persisted[stage] = list.length));
    },
  };
}
