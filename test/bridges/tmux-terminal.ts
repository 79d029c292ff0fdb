/**
 * Test support: a program under a real terminal, for agent CLIs that behave differently there
 * (Claude Code asks its permission prompts, and fires PermissionRequest, only interactively). tmux
 * runs it on a server of its own (its own socket, removed on close), keys are typed with
 * send-keys and the screen is read with capture-pane, as a person would see it.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";

export const HAS_TMUX = spawnSync("tmux", ["-V"]).status === 0;

export interface Terminal {
  /** What the screen shows now. */
  screen(): string;
  /** Types `text` (keys as tmux names them when `keys` is set: "Enter", "Escape", "C-c"). */
  type(text: string, options?: { keys?: boolean }): void;
  /** Waits until the screen shows `text`; returns the screen. */
  waitFor(text: string | RegExp, timeout?: number): Promise<string>;
  /** Waits until the program has exited. */
  waitForExit(timeout?: number): Promise<void>;
  /** Ends the program and its terminal (idempotent). */
  close(): void;
}

let terminals = 0;

/**
 * Runs `command args` in `cwd` with exactly `env` (plus TERM) in a new terminal of `columns` x `rows`.
 * The command line is written to a script in `cwd` that starts it under `env -i`, so the
 * environment is the one given, whatever the tmux server's own.
 */
export function openTerminal(command: string, args: string[], { cwd, env, columns = 160, rows = 50 }: { cwd: string; env: Record<string, string>; columns?: number; rows?: number }): Terminal {
  const socket = path.join(tmpdir(), `hookplane-tmux-${process.pid}-${++terminals}`);
  const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
  const script = path.join(cwd, `.terminal-${terminals}.sh`);
  const assignments = Object.entries({ TERM: "xterm-256color", ...env }).map(([name, value]) => quote(`${name}=${value}`));
  const run = ["exec env -i", ...assignments, ...[command, ...args].map(quote)].join(" ");
  writeFileSync(script, ["#!/bin/sh", `cd ${quote(cwd)}`, run, ""].join("\n"));
  chmodSync(script, 0o755);
  const tmux = (...argv: string[]) => spawnSync("tmux", ["-S", socket, ...argv], { encoding: "utf8" });
  const started = tmux("new-session", "-d", "-s", "main", "-x", String(columns), "-y", String(rows), script);
  if (started.status !== 0) throw new Error(`tmux could not start ${command}: ${started.stderr}`);
  const alive = () => tmux("has-session", "-t", "main").status === 0;
  const screen = () => tmux("capture-pane", "-p", "-t", "main").stdout;
  return {
    screen,
    type(text, { keys = false } = {}) {
      tmux("send-keys", "-t", "main", ...(keys ? [text] : ["-l", text]));
    },
    async waitFor(text, timeout = 60_000) {
      let shown = "";
      const found = () => (shown = screen()) && (typeof text === "string" ? shown.includes(text) : text.test(shown));
      try {
        await expect.poll(found, { timeout, interval: 200, message: `waiting for ${text} on the screen` }).toBeTruthy();
      } catch (error) {
        // What the terminal showed instead is what a failure needs to be read.
        throw new Error(`${(error as Error).message}\nthe screen:\n${shown}`);
      }
      return shown;
    },
    async waitForExit(timeout = 30_000) {
      await expect.poll(alive, { timeout, interval: 200, message: `waiting for ${command} to exit` }).toBe(false);
    },
    close() {
      tmux("kill-server");
      rmSync(socket, { force: true });
    },
  };
}
