import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { bindTemplateToEnv } from "./shell-template";

/** Runs the bound command with sh, as the shell tool does, and returns its stdout. */
function run(text: string, vars: Record<string, unknown>) {
  const bound = bindTemplateToEnv(text, vars);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...bound.env } as Record<string, string>;
  const result = spawnSync("sh", ["-c", bound.command], { env: env as NodeJS.ProcessEnv, encoding: "utf8" });
  return { ...bound, stdout: result.stdout, stderr: result.stderr };
}

const hostile = "notes.txt; echo INJECTED-$((6*7)) `id -u` $(id -u) \"'\n|| touch /tmp/pwned";

describe("template values reach a shell command as data", () => {
  it("outside quotes: the value is one argument, never parsed", () => {
    const out = run("echo checking {{path}}", { path: hostile });
    expect(out.command).toBe('echo checking "${HOOK_VAR_1}"');
    expect(out.env).toEqual({ HOOK_VAR_1: hostile });
    expect(out.stdout).toBe(`checking ${hostile}\n`);
    expect(out.stdout).not.toContain("INJECTED-42");
  });

  it("inside double quotes and inside single quotes", () => {
    expect(run('echo "file: {{path}}!"', { path: hostile }).stdout).toBe(`file: ${hostile}!\n`);
    const single = run("echo 'file: {{path}}!'", { path: hostile });
    expect(single.command).toBe(`echo 'file: '"\${HOOK_VAR_1}"'!'`);
    expect(single.stdout).toBe(`file: ${hostile}!\n`);
  });

  it("escapes and several placeholders keep their places", () => {
    const out = run(`printf '%s|%s|%s\\n' {{a}} "\\"{{b}}\\"" 'it''s {{c}}'`, { a: "x y", b: "$(echo no)", c: "`echo no`" });
    expect(out.stdout).toBe('x y|"$(echo no)"|its `echo no`\n');
    expect(Object.keys(out.env)).toEqual(["HOOK_VAR_1", "HOOK_VAR_2", "HOOK_VAR_3"]);
  });

  it("objects as JSON; unknown placeholders stay as written", () => {
    const out = run("echo {{obj}} {{missing}}", { obj: { a: 1 } });
    expect(out.stdout).toBe('{"a":1} {{missing}}\n');
  });

  it("a command without placeholders is unchanged", () => {
    expect(bindTemplateToEnv("ls -la", {})).toEqual({ command: "ls -la", env: {} });
  });
});
