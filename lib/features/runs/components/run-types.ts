import type { RunActor } from "@/components/ui/run-actor";

export type { RunActor };

export interface RunEvent {
  seq: number;
  type: string;
  ts: string;
  data: Record<string, unknown>;
}

