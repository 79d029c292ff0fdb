/**
 * What a detector reads of an event: the shell command a call runs (tool.pre); any text a call or
 * prompt carries (the input's JSON before a call, every string of its output after it, a prompt);
 * session rules read the call itself, once, before it runs. One place, for the detect action and
 * for `when: detects(…)`.
 */
import { stringsOf } from "@/lib/core/hooks/json-strings";
import { shellCommandOf } from "./shell/shell-command-of";
import type { Detector } from "./types";

export function eventTexts(reads: Detector["reads"], type: string, data: Record<string, unknown>, inputJson: () => string = () => JSON.stringify(data.toolInput ?? {})): string[] {
  if (reads === "session") return type === "tool.pre" ? [""] : [];
  if (reads === "shell-command") {
    const command = type === "tool.pre" ? shellCommandOf(data.toolInput) : undefined;
    return command === undefined ? [] : [command];
  }
  switch (type) {
    case "tool.pre":
      return [inputJson()];
    case "tool.post":
      return stringsOf(data.output);
    case "user.prompt.submit":
      return typeof data.prompt === "string" ? [data.prompt] : [];
    default:
      return [];
  }
}
