/**
 * The Hookplane bridge hook as the coding agents' hook files write it (`hookplane hook <agent>
 * --agent NAME`, with or without npx): importers recognise it and skip it, since it is Hookplane's
 * own way in, not a hook to carry over.
 */
export const BRIDGE_COMMAND = /^\s*(?:npx\s+(?:-y\s+)?)?hookplane\s+hook\s+(?:claude-code|codex|gemini-cli|copilot|cursor)\b/;
/** The agent a bridge command names (`--agent NAME` or `--agent=NAME`). */
export const agentOfBridge = (command: string) => /--agent(?:=|\s+)["']?([^\s"']+)/.exec(command)?.[1];
