import { mkdtempSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createToolRegistry } from "./tool-registry";
import type { ToolRegistry } from "@/lib/core/agent/tool-types";

let base: string;
let workspace: string;
let outside: string;
let tools: ToolRegistry;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "hookplane-files-")));
  workspace = path.join(base, "ws");
  outside = path.join(base, "outside");
  mkdirSync(workspace);
  mkdirSync(outside);
  writeFileSync(path.join(outside, "secret.txt"), "top secret");
  tools = createToolRegistry({ workspaceDir: workspace, outputCap: 64 });
});

afterEach(async () => {
  const { rm } = await import("node:fs/promises");
  await rm(base, { recursive: true, force: true });
});

describe("file tools", () => {
  it("writes, reads and lists inside the workspace", async () => {
    const written = await tools.call("write_file", { path: "notes/a.txt", content: "hello" });
    expect(written).toEqual({ output: "wrote 5 bytes to notes/a.txt", isError: false });
    expect(readFileSync(path.join(workspace, "notes/a.txt"), "utf8")).toBe("hello");
    expect(await tools.call("read_file", { path: "notes/a.txt" })).toEqual({ output: "hello", isError: false });
    expect((await tools.call("list_files", {})).output).toBe("notes/");
    expect((await tools.call("list_files", { recursive: true })).output).toBe("notes/\nnotes/a.txt");
  });

  it("caps what read_file returns", async () => {
    writeFileSync(path.join(workspace, "big.txt"), "x".repeat(500));
    const result = await tools.call("read_file", { path: "big.txt" });
    expect(result.isError).toBe(false);
    expect(result.output).toContain("x".repeat(64) + "\n[output truncated: 500 bytes");
  });

  it("reports a missing file as an error result", async () => {
    expect(await tools.call("read_file", { path: "nope.txt" })).toEqual({
      output: "no such file or directory: nope.txt",
      isError: true,
    });
  });

  it.each([
    ["../outside/secret.txt"],
    ["notes/../../outside/secret.txt"],
    ["/etc/passwd"],
  ])("refuses to read %s", async (p) => {
    const result = await tools.call("read_file", { path: p });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^refused: .*outside the workspace/);
  });

  it("accepts an absolute path that is inside the workspace", async () => {
    writeFileSync(path.join(workspace, "in.txt"), "inside");
    expect((await tools.call("read_file", { path: path.join(workspace, "in.txt") })).output).toBe("inside");
  });

  it("refuses a symlinked file that points outside", async () => {
    symlinkSync(path.join(outside, "secret.txt"), path.join(workspace, "link.txt"));
    const read = await tools.call("read_file", { path: "link.txt" });
    expect(read.isError).toBe(true);
    expect(read.output).toMatch(/refused/);
    const write = await tools.call("write_file", { path: "link.txt", content: "pwned" });
    expect(write.isError).toBe(true);
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("top secret");
  });

  it("refuses writing through a symlinked folder that points outside", async () => {
    symlinkSync(outside, path.join(workspace, "out"));
    const write = await tools.call("write_file", { path: "out/new.txt", content: "pwned" });
    expect(write.isError).toBe(true);
    expect(existsSync(path.join(outside, "new.txt"))).toBe(false);
    const deep = await tools.call("write_file", { path: "out/a/b/new.txt", content: "pwned" });
    expect(deep.isError).toBe(true);
    expect(existsSync(path.join(outside, "a"))).toBe(false);
    const list = await tools.call("list_files", { path: "out" });
    expect(list.isError).toBe(true);
  });

  it("refuses a dangling symlink that a write would follow", async () => {
    symlinkSync(path.join(outside, "planted.txt"), path.join(workspace, "dangling.txt"));
    const write = await tools.call("write_file", { path: "dangling.txt", content: "pwned" });
    expect(write.isError).toBe(true);
    expect(existsSync(path.join(outside, "planted.txt"))).toBe(false);
  });

  it("follows a symlink that stays inside the workspace, and lists links without descending", async () => {
    writeFileSync(path.join(workspace, "real.txt"), "real");
    symlinkSync(path.join(workspace, "real.txt"), path.join(workspace, "alias.txt"));
    symlinkSync(outside, path.join(workspace, "out"));
    expect((await tools.call("read_file", { path: "alias.txt" })).output).toBe("real");
    expect((await tools.call("list_files", { recursive: true })).output).toBe("alias.txt@\nout@\nreal.txt");
  });

  it("refuses listing outside", async () => {
    const result = await tools.call("list_files", { path: ".." });
    expect(result.isError).toBe(true);
  });
});
