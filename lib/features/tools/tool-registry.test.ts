import { describe, expect, it } from "vitest";
import { createInMemoryMemoryStore } from "./memory-store";
import { createToolRegistry } from "./tool-registry";

describe("tool registry", () => {
  const tools = createToolRegistry({ workspaceDir: "/tmp", memory: createInMemoryMemoryStore() });

  it("lists every tool with a JSON schema of its input", () => {
    const list = tools.list();
    expect(list.map((t) => t.name)).toEqual([
      "shell", "read_file", "write_file", "list_files", "http_request", "memory",
    ]);
    const shell = list.find((t) => t.name === "shell")!;
    expect(shell.inputSchema).toMatchObject({
      type: "object",
      properties: { command: { type: "string" } },
      required: ["command"],
    });
    expect(shell.inputSchema).not.toHaveProperty("$schema");
    // Fields with defaults are optional for the model.
    const list_files = list.find((t) => t.name === "list_files")!;
    expect(list_files.inputSchema.required ?? []).toEqual([]);
  });

  it("answers an unknown tool with an error result instead of throwing", async () => {
    const result = await tools.call("rm_rf", { path: "/" });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^unknown tool "rm_rf"/);
  });

  it("answers invalid input with an error result naming the field", async () => {
    expect(await tools.call("shell", { command: 42 })).toEqual({
      output: expect.stringMatching(/^invalid input for shell: command: /),
      isError: true,
    });
    expect((await tools.call("shell", null)).isError).toBe(true);
  });
});
