/** The keyword automaton finds what a search for each keyword finds, in either case, and bounds its work. */
import { describe, expect, it } from "vitest";
import { keywordAutomaton } from "./keyword-automaton";

const naive = (keywords: string[], text: string) => {
  const lower = text.toLowerCase();
  const hits: string[] = [];
  keywords.forEach((k, i) => {
    for (let at = lower.indexOf(k); at !== -1; at = lower.indexOf(k, at + 1)) hits.push(`${i}@${at}`);
  });
  return hits.sort();
};

describe("the keyword automaton", () => {
  const keywords = ["key", "ey", "sk_live", "-----begin", "s.", "token", "ghp_", "akia", "api", "pi"];

  it("finds every occurrence of every keyword, overlapping ones too, whatever their case", () => {
    const text = "API_KEY=sk_LIVE_x; they said -----BEGIN RSA; ghp_ and AKIA... tokens. Pipi keykey";
    const found = keywordAutomaton(keywords).scan(text, 100).map((h) => `${h.keyword}@${h.start}`).sort();
    expect(found).toEqual(naive(keywords, text));
  });

  it("agrees with a plain search on random text, characters beyond ASCII included", () => {
    const alphabet = "keysk_live-beginsok.tghpakiapé€ \n";
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const text = Array.from({ length: 20_000 }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
    const found = keywordAutomaton(keywords).scan(text, 1e9).map((h) => `${h.keyword}@${h.start}`).sort();
    expect(found).toEqual(naive(keywords, text));
  });

  it("stops counting a keyword at the bound", () => {
    expect(keywordAutomaton(["ab"]).scan("ab".repeat(1000), 10)).toHaveLength(10);
  });
});
