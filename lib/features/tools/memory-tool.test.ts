import { describe, expect, it } from "vitest";
import { createInMemoryMemoryStore } from "./memory-store";
import { createToolRegistry } from "./tool-registry";

describe("memory tool", () => {
  it("appends to and reads named notes through the store", async () => {
    const memory = createInMemoryMemoryStore();
    const tools = createToolRegistry({ workspaceDir: "/tmp", memory });
    expect(await tools.call("memory", { action: "read", file: "ctx.md" })).toEqual({ output: "", isError: false });
    await tools.call("memory", { action: "append", file: "ctx.md", text: "one\n" });
    await tools.call("memory", { action: "append", file: "ctx.md", text: "two\n" });
    expect(await tools.call("memory", { action: "read", file: "ctx.md" })).toEqual({
      output: "one\ntwo\n",
      isError: false,
    });
    expect(memory.notes.get("ctx.md")).toBe("one\ntwo\n");
  });

  it("refuses path-like note names and empty appends", async () => {
    const tools = createToolRegistry({ workspaceDir: "/tmp", memory: createInMemoryMemoryStore() });
    const escape = await tools.call("memory", { action: "read", file: "../etc/passwd" });
    expect(escape.isError).toBe(true);
    expect(escape.output).toMatch(/^invalid input for memory: file:/);
    expect((await tools.call("memory", { action: "append", file: "a.md" })).isError).toBe(true);
  });

  it("is not offered without a store", () => {
    const names = createToolRegistry({ workspaceDir: "/tmp" }).list().map((t) => t.name);
    expect(names).toEqual(["shell", "read_file", "write_file", "list_files", "http_request"]);
  });
});
