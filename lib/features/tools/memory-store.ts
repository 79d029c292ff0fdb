/**
 * The `memory` tool's storage port: named notes an agent keeps across runs. The database layer
 * implements it; the in-memory one serves tests and the embedded demo.
 */
export interface MemoryStore {
  /** The note's full text, or undefined when it does not exist yet. */
  read(name: string): Promise<string | undefined>;
  append(name: string, text: string): Promise<void>;
}

export function createInMemoryMemoryStore(initial: Record<string, string> = {}): MemoryStore & {
  notes: Map<string, string>;
} {
  const notes = new Map(Object.entries(initial));
  return {
    notes,
    async read(name) {
      return notes.get(name);
    },
    async append(name, text) {
      notes.set(name, (notes.get(name) ?? "") + text);
    },
  };
}
