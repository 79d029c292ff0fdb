/**
 * `injection`: instructions planted in content an agent reads (a web page, a file, a tool's
 * output, a pasted prompt) that speak to the model instead of informing it: telling it to drop its
 * instructions or take on another role, to send data somewhere, to run a command, fake turn and
 * system markers, and text hidden from the person reading (Unicode tag characters, runs of
 * zero-width characters, bidirectional overrides). Phrase rules read the text case-folded with
 * white space collapsed; each finding's range is the phrase, so a redaction removes just that.
 */
import { patternDetector, type PatternRule } from "../pattern-rules";

export const INJECTION = "injection";

/** A pattern rule that says what the text does (its reason shows the phrase, or counts hidden characters). */
type Rule = Omit<PatternRule, "judge"> & { what: string };

const VERB_DROP = String.raw`(?:ignore|disregard|forget|override|bypass|skip|abandon|drop)`;
/** Whose or which orders: "all", "your", "the previous", "any previous and following" (bare "ignore rules" is a .gitignore's). */
const PRIOR = String.raw`(?:(?:(?:all|any|every|the|your|my|these|those|its)\s+)?(?:previous|prior|above|earlier|preceding|former|original|initial|system|developer|following|other|existing)\s+(?:and\s+following\s+)?|(?:all|any|every|your)\s+(?:of\s+(?:your|the)\s+)?)`;
const ORDERS = String.raw`(?:instructions?|directions?|directives?|rules|prompts?|guidelines|guardrails|constraints|context|orders|commands|policies|programming)`;
const SECRETS = String.raw`(?:secrets?|credentials?|api[ -]?keys?|access[ -]?keys?|tokens?|passwords?|env(?:ironment)?(?:\s+variables)?|\.env|ssh[ -]keys?|private[ -]keys?|cookies?|session|conversation|chat history|system prompt|source code|files?|data)`;
/** Up to 80 characters of one sentence: a dot ends it only before white space (`~/.aws/credentials` does not). */
const WITHIN_SENTENCE = String.raw`(?:[^.\n]|\.(?=\S)){0,80}?`;
const AGENT = String.raw`(?:ai|assistant|agent|model|llm|language model|chatbot|claude|chatgpt|gpt|copilot|codex|gemini|cursor|bot)`;

const RULES: readonly Rule[] = [
  {
    rule: "instruction-override",
    finds: "telling the model to ignore, forget or override its previous (or all, or your) instructions, rules or guidelines; \"forget everything you learned\"; \"stop everything … just\"",
    pattern: new RegExp(String.raw`\b${VERB_DROP}\s+${PRIOR}${ORDERS}\b|\bforget (?:everything|all) (?:you(?:'ve| have)? (?:learned|been told|know|were told)|before)\b|\bstop everything\b[^.\n]{0,20}?\b(?:just|now|and)\b`, "gi"),
    confidence: "high",
    what: "tells the model to drop its instructions",
  },
  {
    rule: "role-takeover",
    finds: "giving the model a new identity or mode: \"you are now …\", \"from now on you …\", \"act as …\" with DAN or developer mode, playing \"the role of another AI\", \"Do Anything Now\", \"new instructions:\"",
    pattern: /\b(?:you are now (?:in |a |an |the )?(?:dan|developer mode|jailbroken|unrestricted|unfiltered|free)|from now on,? you (?:are|will|must|shall)|(?:act|pretend|behave) (?:as|like|to be) (?:an? )?(?:dan|unrestricted|unfiltered|jailbroken)|pretend to be \w+,? which stands for|(?:play|take on|assume|immerse yourself (?:in|into)) the role of (?:another|an?) (?:ai|al|artificial intelligence|model|language model|assistant)|do anything now|(?:dan|developer) mode (?:enabled|activated|on)|new (?:system )?instructions\s*:)/gi,
    confidence: "medium",
    what: "gives the model a new role",
  },
  {
    rule: "exfiltration-request",
    finds: "asking to send, upload or post secrets, credentials, the conversation or files to a URL, a host or an email address",
    pattern: new RegExp(String.raw`\b(?:send|post|upload|forward|email|e-mail|exfiltrate|leak|transmit|submit|share|paste)\b${WITHIN_SENTENCE}(?:\b|(?=\.))${SECRETS}\b${WITHIN_SENTENCE}\b(?:to|at|into|on)\s+(?:https?://|[\w.+-]+@[\w-]+\.|(?:this|the following|my|our) (?:url|endpoint|server|address|webhook))`, "gi"),
    confidence: "high",
    what: "asks for data to be sent away",
  },
  {
    rule: "command-request",
    finds: "addressing the AI reading it and asking it to run, execute or install something",
    pattern: new RegExp(String.raw`\b(?:(?:dear|attention|note to|hey|hi)\s+(?:the\s+)?${AGENT}s?\b[^.\n]{0,80}?\b(?:run|execute|install|call|invoke|curl|delete|remove)\b|\b${AGENT}s?\s*(?:reading this|:)\s*[^.\n]{0,40}?\b(?:run|execute|install|call|invoke|delete|remove)\b|\b(?:you must|you should|please|now)\s+(?:immediately\s+)?(?:run|execute)\s+(?:the following|this)\s+(?:command|script|code)\b)`, "gi"),
    confidence: "medium",
    what: "asks the AI to run something",
  },
  {
    rule: "fake-turn-marker",
    finds: "chat-template and turn markers inside content (<|im_start|>system, [SYSTEM], </tool_result>, <system>, a line opening with \"System:\" or \"Assistant:\")",
    pattern: /(?:<\|im_start\|>\s*(?:system|assistant|user)|<\|(?:system|endoftext|eot_id|start_header_id)\|>|\[\/?(?:SYSTEM|INST)\]|<\/?(?:system|tool_result|function_results|instructions)>|^\s*(?:#{1,3}\s*)?(?:system|assistant)\s*:\s*\S)/gim,
    confidence: "medium",
    what: "carries a chat turn or system marker",
  },
  {
    rule: "hidden-text",
    finds: "text hidden from a person: Unicode tag characters (U+E0000–E007F, \"ASCII smuggling\"), three or more zero-width characters in a row, bidirectional override characters",
    pattern: /[\u{E0000}-\u{E007F}]+|[\u200B-\u200D\u2060\uFEFF]{3,}|[\u202A-\u202E\u2066-\u2069]/gu,
    confidence: "high",
    what: "holds text a person cannot see",
  },
];

/** The most findings of one rule in one text: a bound on the work a hostile text can ask for. */
const MAX_MATCHES = 1_000;

export const injectedInstructions = patternDetector(
  INJECTION,
  1,
  RULES.map((rule) => ({
    ...rule,
    judge: (value: string) => `the text ${rule.what}: ${rule.rule === "hidden-text" ? `${[...value].length} hidden characters` : `"${value.replace(/\s+/g, " ").trim().slice(0, 80)}"`}`,
  })),
  MAX_MATCHES,
);
