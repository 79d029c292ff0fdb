/**
 * The `memory` tool: read or append a named note through the MemoryStore port.
 */
import { z } from "zod";
import type { MemoryStore } from "./memory-store";
import { capOutput } from "./output-cap";
import { defineTool, toolError, toolOutput, type ToolImplementation } from "@/lib/core/agent/tool-types";

/** Note names are plain file-like names: they become keys in the database, never paths. */
const noteName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, "file is letters, digits, '_', '-' and '.', at most 128 characters");

// Module-level, so every run's registry shares it (and its JSON Schema, built once).
const memoryInput = z.object({
  action: z.enum(["read", "append"]),
  file: noteName.describe("note name, e.g. context.md"),
  text: z.string().optional().describe("text to append (action 'append')"),
});

export function memoryTool(store: MemoryStore, outputCap: number): ToolImplementation {
  return defineTool({
    name: "memory",
    description:
      "Named notes kept across runs. action 'read' returns the note (empty when it does not exist); " +
      "action 'append' adds text to its end.",
    input: memoryInput,
    // Reading a note again is harmless; appending twice is not.
    retrySafe: ({ action }) => action === "read",
    async run({ action, file, text }) {
      if (action === "read") return toolOutput(capOutput((await store.read(file)) ?? "", outputCap));
      if (text === undefined || text === "") return toolError("append needs a non-empty 'text'");
      await store.append(file, text);
      return toolOutput(`appended ${Buffer.byteLength(text, "utf8")} bytes to ${file}`);
    },
  });
}
