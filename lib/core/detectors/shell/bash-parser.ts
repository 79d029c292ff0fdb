/**
 * tree-sitter's bash grammar, run by web-tree-sitter (WebAssembly): a real shell parser that
 * tolerates what it cannot read (an ERROR node, not an exception), parses about a kilobyte a
 * millisecond and walks its tree for much less. Loading its WebAssembly is asynchronous, so it
 * starts on first import and `bashParserReady()` is awaited where a process boots (and by tests);
 * a detector asked before then fails (its hook's onFailure decides: a gate blocks).
 */
import { createRequire } from "node:module";
import path from "node:path";
import { Language, Parser } from "web-tree-sitter";

/**
 * Resolved from the project root, not from this module: Next and esbuild bundle this file
 * elsewhere, while the packages stay in node_modules (serverExternalPackages in next.config.ts).
 */
const fromRoot = createRequire(path.join(process.cwd(), "package.json"));

interface BashParserState {
  parser?: Parser;
  failure?: string;
  loading: Promise<void>;
}

/**
 * On globalThis: server.ts and Next's bundled route handlers each have a copy of this module, and
 * the one the process awaited at boot is the one every copy uses.
 */
const STATE_KEY = Symbol.for("hookplane.bashParser");
const holder = globalThis as typeof globalThis & { [STATE_KEY]?: BashParserState };
const state: BashParserState = (holder[STATE_KEY] ??= load());

function load(): BashParserState {
  const loaded: BashParserState = { loading: Promise.resolve() };
  loaded.loading = (async () => {
    try {
      await Parser.init({ locateFile: (file: string) => fromRoot.resolve(`web-tree-sitter/${file}`) });
      const bash = await Language.load(fromRoot.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
      const ready = new Parser();
      ready.setLanguage(bash);
      loaded.parser = ready;
    } catch (error) {
      loaded.failure = `the bash parser did not load: ${error instanceof Error ? error.message : String(error)}`;
    }
  })();
  return loaded;
}

/** Resolves once the parser is loaded (or failed to: `bashParser` then throws with why). */
export function bashParserReady(): Promise<void> {
  return state.loading;
}

/** The loaded parser; throws while it loads or when it could not. */
export function bashParser(): Parser {
  if (state.parser) return state.parser;
  throw new Error(state.failure ?? "the bash parser is still loading");
}
