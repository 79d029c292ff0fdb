/**
 * Three demo agents on the `scripted` model, each after a seed system's own example, so a fresh
 * dashboard shows what Hookplane is for: conditional notifications (herdctl), a production guard
 * (Loom) and before/after-run tool hooks (Tailored AI).
 */
import type { AgentSpecInput } from "@/lib/core/agent/agent-spec";
import type { HookSpecInput } from "@/lib/core/hooks/spec";

export const DEMO_AGENTS: { agent: AgentSpecInput; hooks: Omit<HookSpecInput, "scope">[] }[] = [
  {
    agent: {
      name: "price-checker",
      description: "Monitors product prices and notifies only when a deal meets the target (herdctl's example).",
      model: "scripted",
      instructions:
        "You monitor product prices. After checking prices, write metadata.json with shouldNotify: true if the price meets the target, plus lowestPrice, retailer, product and url.",
      tools: ["write_file", "read_file"],
      maxTurns: 15,
      metadataFile: "metadata.json",
      script: [
        {
          text: "Checking prices at three retailers.",
          toolCalls: [
            {
              name: "write_file",
              input: {
                path: "metadata.json",
                content: JSON.stringify({ shouldNotify: true, lowestPrice: 159.99, retailer: "Staples", product: "Hyken Mesh Chair", meetsTarget: true }),
              },
            },
          ],
          usage: { inputTokens: 420, outputTokens: 96 },
        },
        { text: "Price check complete: Staples has the Hyken Mesh Chair at $159.99, under the $180 target.", usage: { inputTokens: 610, outputTokens: 38 } },
      ],
    },
    hooks: [
      { id: "log-output", name: "Log output", event: "session.end", action: { type: "log", message: "{{response}}" } },
      {
        id: "price-alert",
        name: "Price alert",
        event: "session.end",
        when: "metadata.shouldNotify",
        onOutcomes: ["completed"],
        onFailure: "continue",
        action: { type: "slack", channel: "C0123456789", tokenSecret: "SLACK_BOT_TOKEN" },
      },
    ],
  },
  {
    agent: {
      name: "coding-agent",
      description: "Edits files in its workspace; a tool.pre guard keeps it out of /srv/prod (Loom's no-prod example).",
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
          text: "Production is off-limits, so I'll write the change as a patch in the workspace instead.",
          toolCalls: [{ name: "write_file", input: { path: "app.yml.patch", content: "replicas: 3\n" } }],
          usage: { inputTokens: 520, outputTokens: 72 },
        },
        { text: "Wrote app.yml.patch for review instead of touching /srv/prod.", usage: { inputTokens: 600, outputTokens: 24 } },
      ],
    },
    hooks: [
      {
        id: "no-prod",
        name: "No writes under /srv/prod",
        event: "tool.pre",
        matcher: "write_file|shell",
        action: { type: "block", reason: "Production paths are off-limits in this session.", denyIf: "/srv/prod" },
      },
    ],
  },
  {
    agent: {
      name: "researcher",
      description: "A research assistant whose notes are read before each run and appended after it (Tailored AI's example).",
      model: "scripted",
      instructions: "You are a research assistant.",
      tools: ["memory", "http_request"],
      maxTurns: 8,
      script: [{ text: "Summary: three new papers on agent hooks this week; the most cited proposes approval gates.", usage: { inputTokens: 900, outputTokens: 120 } }],
    },
    hooks: [
      {
        id: "read-context",
        name: "Read research context",
        event: "session.start",
        action: { type: "tool", tool: "memory", args: { action: "read", file: "research-context.md" } },
      },
      {
        id: "append-log",
        name: "Append the answer to the research log",
        event: "session.end",
        action: { type: "tool", tool: "memory", args: { action: "append", file: "research-log.md", text: "{{response}}" } },
      },
    ],
  },
];
