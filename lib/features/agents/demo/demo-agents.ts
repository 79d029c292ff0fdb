/**
 * Three demo agents on the `scripted` model, each after a seed system's own example, so a fresh
 * dashboard shows what Hookplane is for: a guard that blocks (Loom's no-prod), a person who
 * approves (herdctl's price alert, confirmed before the team hears of it) and hooks that give the
 * model context and keep its notes (Tailored AI's before/after-run tools).
 *
 * The scripts agree with what the hooks did: a turn's `ifError` is what the model says when a call
 * of the turn before was denied (by a hook or a person) or failed, so no demo claims a write that
 * never happened; `{{prompt}}` is the run's prompt, so an answer is about what was asked.
 */
import type { AgentSpecInput } from "@/lib/core/agent/agent-spec";
import type { HookSpecInput } from "@/lib/core/hooks/spec";

/**
 * The tools a guard on writes and commands must name: Hookplane's own, and those of the coding
 * agents that bridge to an agent (Claude Code's Bash/Write/Edit, Codex's apply_patch, Gemini CLI's
 * run_shell_command/replace), so connecting one to the demo enforces the same guard.
 */
export const WRITE_AND_SHELL_TOOLS = "write_file|shell|Bash|Write|Edit|MultiEdit|NotebookEdit|apply_patch|run_shell_command|replace";

/** The notes the researcher reads before each run and appends to after it: one file, so its loop closes. */
export const RESEARCH_NOTES = "research-notes.md";

export const DEMO_AGENTS: { agent: AgentSpecInput; hooks: Omit<HookSpecInput, "scope">[] }[] = [
  {
    agent: {
      name: "price-checker",
      description: "Checks a product's price; a person confirms a deal before it is recorded and the team is notified (herdctl's price alert).",
      model: "scripted",
      instructions:
        "You check product prices. When a price meets the target, write metadata.json with shouldNotify: true, lowestPrice, retailer and url; the team is notified from it.",
      tools: ["write_file", "read_file"],
      maxTurns: 15,
      metadataFile: "metadata.json",
      script: [
        {
          text: "Checking prices for “{{prompt}}” at three retailers. The lowest, $159.99 at Staples, meets the target: recording the deal so the team hears of it.",
          toolCalls: [
            {
              name: "write_file",
              input: {
                path: "metadata.json",
                content: JSON.stringify({ shouldNotify: true, lowestPrice: 159.99, retailer: "Staples", url: "https://www.staples.com/", meetsTarget: true }),
              },
            },
          ],
          usage: { inputTokens: 420, outputTokens: 96 },
        },
        {
          text: "Price check for “{{prompt}}” done: $159.99 at Staples meets the target, and the deal is recorded for the team.",
          ifError: { text: "Price check for “{{prompt}}” done: $159.99 at Staples meets the target, but the deal was not confirmed, so nothing was recorded and the team is not notified.", usage: { inputTokens: 640, outputTokens: 44 } },
          usage: { inputTokens: 610, outputTokens: 38 },
        },
      ],
    },
    hooks: [
      {
        id: "confirm-deal",
        name: "A person confirms a deal before it is recorded",
        event: "tool.pre",
        matcher: "write_file|Write",
        action: { type: "approve", message: "Record this deal and notify the team?", timeoutMs: 30 * 60_000, onTimeout: "deny" },
      },
      { id: "log-output", name: "Log output", event: "session.end", action: { type: "log", message: "{{response}}" } },
      {
        id: "price-alert",
        name: "Price alert to Slack",
        event: "session.end",
        when: "metadata.shouldNotify",
        onOutcomes: ["completed"],
        // Until a SLACK_BOT_TOKEN secret is set this fails on every run: the hook's health says so.
        onFailure: "continue",
        action: { type: "slack", channel: "C0123456789", tokenSecret: "SLACK_BOT_TOKEN" },
      },
    ],
  },
  {
    agent: {
      name: "coding-agent",
      description: "Edits files in its workspace; a tool.pre guard keeps it (and any coding agent bridged to it) out of /srv/prod (Loom's no-prod example).",
      model: "scripted",
      instructions: "You are a careful coding agent. Keep changes inside the workspace.",
      tools: ["read_file", "write_file", "list_files", "shell"],
      maxTurns: 10,
      script: [
        {
          text: "I'll update the production config directly.",
          toolCalls: [{ name: "write_file", input: { file_path: "/srv/prod/app.yml", path: "/srv/prod/app.yml", content: "replicas: 3\n" } }],
          usage: { inputTokens: 380, outputTokens: 64 },
        },
        {
          text: "Updated /srv/prod/app.yml.",
          ifError: {
            text: "The write to /srv/prod was refused, so I'll write the change as a patch in the workspace instead.",
            toolCalls: [{ name: "write_file", input: { path: "app.yml.patch", content: "replicas: 3\n" } }],
            usage: { inputTokens: 520, outputTokens: 72 },
          },
          usage: { inputTokens: 520, outputTokens: 12 },
        },
        {
          text: "Wrote app.yml.patch for review; /srv/prod is unchanged.",
          ifError: { text: "The patch could not be written either: nothing was changed.", usage: { inputTokens: 600, outputTokens: 16 } },
          usage: { inputTokens: 600, outputTokens: 24 },
        },
      ],
    },
    hooks: [
      {
        id: "no-prod",
        name: "No writes under /srv/prod",
        event: "tool.pre",
        matcher: WRITE_AND_SHELL_TOOLS,
        action: { type: "block", reason: "Production paths are off-limits in this session.", denyIf: "/srv/prod" },
      },
    ],
  },
  {
    agent: {
      name: "researcher",
      description: `A research assistant: a context hook sets its rules, its notes (${RESEARCH_NOTES}) are read before each run and its answer appended after it (Tailored AI's example).`,
      model: "scripted",
      instructions: "You are a research assistant.",
      tools: ["memory", "http_request"],
      maxTurns: 8,
      script: [
        {
          text: "Summary for “{{prompt}}”: three new papers on agent hooks this week; the most cited proposes approval gates. Source: my notes and this week's arXiv listing.",
          usage: { inputTokens: 900, outputTokens: 120 },
        },
      ],
    },
    hooks: [
      {
        id: "research-rules",
        name: "Research rules",
        event: "model.pre",
        action: { type: "context", text: "Name a source for every claim, and say so when your notes hold nothing on the question." },
      },
      {
        id: "read-notes",
        name: "Read the research notes",
        event: "session.start",
        action: { type: "tool", tool: "memory", args: { action: "read", file: RESEARCH_NOTES } },
      },
      {
        id: "append-notes",
        name: "Append the answer to the research notes",
        event: "session.end",
        onOutcomes: ["completed"],
        action: { type: "tool", tool: "memory", args: { action: "append", file: RESEARCH_NOTES, text: "{{response}}" } },
      },
    ],
  },
];
