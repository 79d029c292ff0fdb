"use strict";
/**
 * `hookplane audit verify --bundle <file>`: checks one chain's bundle (its format:
 * lib/features/audit/chain-bundle.ts) with node alone, no server and no network. Line by line, in
 * chain order, holding one row at a time, it:
 *
 * - recomputes every row's hash from its content and the hash before it (canonical-json.cjs);
 * - steps over a retention anchor and deleted runs' gaps, each of which must carry the instance's
 *   signature (one made before signing existed passes only with --trust-unsigned);
 * - checks every signed head: its Ed25519 signature, and that it holds the hash the rows reach at
 *   its position, so rows changed and rehashed afterwards break at the first head after them;
 * - requires every row to lie at or before a signed head, and the end line to match what came.
 *
 * It names the first thing that does not verify (table, position, row id, problem) and stops. The
 * signatures are checked with the keys given (--public-key) or, without them, with the key inside
 * the bundle, which proves only that the bundle is whole, not whose it is: a forger can sign a
 * forged bundle with a key of their own. The report says which.
 *
 * The signed messages are built here as in lib/core/audit/chain-signature.ts: change both or
 * neither (lib/features/audit/offline-verifier-parity.test.ts compares them).
 */
const { createPublicKey, verify } = require("node:crypto");
const { createHash } = require("node:crypto");
const { createReadStream, existsSync, readFileSync } = require("node:fs");
const readline = require("node:readline");
const { GENESIS_HASH, canonicalJson, chainHash } = require("./canonical-json.cjs");

const FORMAT = "hookplane-chain-bundle/1";

/** What a could-not-check ends with (exit 2), as opposed to a broken bundle (exit 1). */
class CannotCheck extends Error {}

function signedMessage(statement) {
  return canonicalJson({ ...statement, kind: `hookplane.chain-${statement.kind}/1` });
}

function keyIdOf(rawPublicKey) {
  return createHash("sha256").update(rawPublicKey).digest("hex").slice(0, 16);
}

/** A key from a JWK's `x` (base64url of the raw 32 bytes); its id computed, never taken from the input. */
function keyFromX(x) {
  const raw = Buffer.from(String(x), "base64url");
  if (raw.length !== 32) return undefined;
  try {
    const object = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
    return { x: raw.toString("base64url"), kid: keyIdOf(raw), object };
  } catch {
    return undefined;
  }
}

function keysFromJwks(document) {
  const jwks = Array.isArray(document?.keys) ? document.keys : [document];
  return jwks.filter((k) => k && k.kty === "OKP" && k.crv === "Ed25519" && typeof k.x === "string").map((k) => keyFromX(k.x)).filter(Boolean);
}

/**
 * --public-key: a file or the text itself, holding the well-known document (a JWK set), one JWK,
 * a PEM public key, or the raw key as base64url.
 */
function parsePublicKeys(arg) {
  const text = (existsSync(arg) ? readFileSync(arg, "utf8") : arg).trim();
  let keys = [];
  if (text.startsWith("-----BEGIN")) {
    try {
      const jwk = createPublicKey(text).export({ format: "jwk" });
      keys = jwk.crv === "Ed25519" ? [keyFromX(jwk.x)].filter(Boolean) : [];
    } catch {
      keys = [];
    }
  } else if (text.startsWith("{")) {
    try {
      keys = keysFromJwks(JSON.parse(text));
    } catch {
      keys = [];
    }
  } else {
    keys = [keyFromX(text)].filter(Boolean);
  }
  if (keys.length === 0) throw new CannotCheck(`--public-key: no Ed25519 public key in ${existsSync(arg) ? arg : "the value given"} (a JWK set, a JWK, a PEM key, or the key as base64url)`);
  return keys;
}

const isPosition = (value) => Number.isSafeInteger(value) && value >= 0;
const isHash = (value) => typeof value === "string" && /^[0-9a-f]{64}$/.test(value);

/**
 * Checks the bundle whose lines `lines` yields. Returns the report; throws CannotCheck when the
 * file is not a whole bundle of a format this knows.
 */
async function verifyBundleLines(lines, options = {}) {
  const given = options.publicKey === undefined ? undefined : parsePublicKeys(options.publicKey);
  const report = { ok: false, table: undefined, rows: 0, gaps: 0, removedRows: 0, seals: 0 };
  let header;
  let end;
  let trusted = [];
  let lineNo = 0;
  // Where the chain stands: the next position expected, the hash the next row links to, the last
  // position covered (by a row, a gap or the anchor) with its hash and row id.
  let expected = 1;
  let previous = GENESIS_HASH;
  let covered = 0;
  let coveredId = null;
  let lastGap;
  let lastSeal;
  /** The hashes at the last positions passed: a gap that starts before the next position (see onGap) links from one. */
  const recent = new Map();
  const remember = (position, hash) => {
    recent.set(position, hash);
    if (recent.size > 8192) recent.delete(recent.keys().next().value);
  };
  /** The last position a signed head vouched for, and the first row after it. */
  let vouched = 0;
  let firstUnvouched;
  let started = false;
  let broken;
  const unsigned = [];

  const fail = (position, id, problem, hashes = {}) => {
    broken = { table: report.table, position, id, problem, ...hashes };
  };
  /**
   * A signed record's problem, or undefined when it verifies with a trusted key. Only an anchor or
   * a gap can predate signing; a head without a signature is never one of the instance's.
   */
  const signatureProblem = (what, statement, record) => {
    if (record.signature === null || record.signature === undefined) {
      if (statement.kind === "head") return `${what} carries no signature`;
      if (options.trustUnsigned) {
        unsigned.push(what);
        return undefined;
      }
      return `${what} is not signed: written before this instance signed its records, or added by hand (--trust-unsigned accepts it)`;
    }
    const key = trusted.find((k) => k.kid === record.keyId);
    if (!key) return `${what} was signed with key ${record.keyId}, which is not ${given ? "the key you gave" : "the bundle's key"} (${trusted.map((k) => k.kid).join(", ")})`;
    let ok = false;
    try {
      ok = verify(null, Buffer.from(signedMessage(statement), "utf8"), key.object, Buffer.from(String(record.signature), "base64"));
    } catch {
      ok = false;
    }
    return ok ? undefined : `${what} does not verify: it was changed after it was signed, or signed by another key`;
  };

  const onHeader = (line) => {
    if (line.type !== "bundle") throw new CannotCheck("this is not a Hookplane chain bundle (its first line is not the bundle's header)");
    if (line.format !== FORMAT) throw new CannotCheck(`the bundle's format is ${JSON.stringify(line.format)}; this hookplane reads ${FORMAT}`);
    if (typeof line.table !== "string") throw new CannotCheck("the bundle's header names no table");
    header = line;
    report.table = line.table;
    report.format = line.format;
    report.exportedAt = line.exportedAt;
    const inBundle = keysFromJwks({ keys: Array.isArray(line.keys) ? line.keys : [] });
    report.bundleKeyIds = inBundle.map((k) => k.kid);
    if (given) {
      report.keysCheckedAgainst = "given";
      trusted = given;
      if (!inBundle.some((k) => given.some((g) => g.x === k.x))) {
        fail(null, null, `the bundle carries key ${report.bundleKeyIds.join(", ") || "(none)"}, not the key you gave (${given.map((k) => k.kid).join(", ")}): it was not exported by that instance, or its key was replaced`);
      }
    } else {
      report.keysCheckedAgainst = "bundle";
      trusted = inBundle;
      if (trusted.length === 0) throw new CannotCheck("the bundle carries no Ed25519 key, and none was given (--public-key)");
    }
    report.keyIds = trusted.map((k) => k.kid);
  };

  const onAnchor = (line) => {
    if (started) return fail(line.position, null, "the retention anchor is not where the chain starts (it comes after rows)");
    if (!isPosition(line.position) || !isHash(line.hash)) return fail(line.position ?? null, null, "the retention anchor is malformed");
    const what = `the retention anchor at position ${line.position}`;
    const problem = signatureProblem(what, { kind: "anchor", table: report.table, position: line.position, hash: line.hash, before: line.before }, line);
    if (problem) return fail(line.position, null, problem);
    report.anchor = { position: line.position, hash: line.hash, before: line.before };
    remember(line.position, line.hash);
    expected = line.position + 1;
    previous = line.hash;
    covered = vouched = line.position;
    started = true;
  };

  const onRow = (line) => {
    started = true;
    const content = line.content;
    const id = content && typeof content === "object" && Number.isSafeInteger(content.id) ? content.id : null;
    if (!isPosition(line.position) || !isHash(line.hash) || !content || typeof content !== "object" || Array.isArray(content)) {
      return fail(line.position ?? null, id, `line ${lineNo} is not a well-formed row (position, hash, content)`);
    }
    if (line.position < expected) {
      return fail(line.position, id, `position ${line.position} comes after position ${expected - 1}: rows out of order or repeated`);
    }
    const recomputed = chainHash(previous, content);
    if (line.position > expected) {
      const missing = line.position - 1 === expected ? `the row at position ${expected} is missing` : `the rows at positions ${expected}–${line.position - 1} are missing`;
      return fail(line.position, id, missing, { expectedHash: recomputed, storedHash: line.hash });
    }
    if (recomputed !== line.hash) {
      return fail(line.position, id, "its content does not match its hash: the row (or its hash) was changed after it was sealed", {
        expectedHash: recomputed,
        storedHash: line.hash,
      });
    }
    previous = line.hash;
    covered = line.position;
    coveredId = id;
    lastGap = undefined;
    remember(line.position, line.hash);
    expected++;
    report.rows++;
    if (!firstUnvouched) firstUnvouched = { position: line.position, id };
  };

  const onGap = (line) => {
    started = true;
    const { firstPosition: first, lastPosition: last } = line;
    if (!isPosition(first) || !isPosition(last) || last < first || !isHash(line.hash)) return fail(first ?? null, null, "a gap is malformed");
    // A gap may start before the next position when a run was deleted while the bundle was exported
    // (its first rows came already, and were checked); it must reach the next position.
    if (first > expected) {
      return fail(first, null, first - 1 === expected ? `the row at position ${expected} is missing` : `the rows at positions ${expected}–${first - 1} are missing`);
    }
    if (last < expected) return fail(first, null, `the gap at positions ${first}–${last} comes after position ${expected - 1}: out of chain order`);
    const what = `the gap at positions ${first}–${last} (deleted run ${line.runId})`;
    const previousHash = line.previousHash ?? null;
    const statement = { kind: "gap", table: report.table, firstPosition: first, lastPosition: last, previousHash, hash: line.hash, runId: line.runId };
    const problem = signatureProblem(what, statement, line);
    if (problem) return fail(first, null, problem);
    const signed = line.signature !== null && line.signature !== undefined;
    if (signed && previousHash !== null) {
      // The rows before the gap must still hash to what they did when the run was deleted: that
      // binds them to the gap's signature, as a signed head would.
      const linkedFrom = first === 1 ? GENESIS_HASH : recent.get(first - 1);
      if (linkedFrom === undefined) return fail(first, null, `${what} starts too far before position ${expected} to be checked`);
      if (linkedFrom !== previousHash) {
        return fail(first, null, `${what} links from another hash than the rows before it reach: a row at positions ${vouched + 1}–${first - 1} was changed and the hashes after it recomputed since the run was deleted`, {
          expectedHash: previousHash,
          storedHash: linkedFrom,
        });
      }
    }
    if (firstUnvouched && !(signed && previousHash !== null) && !options.trustUnsigned) {
      return fail(firstUnvouched.position, firstUnvouched.id, `no signed head covers the rows from position ${firstUnvouched.position} to the gap at ${first}: nothing binds them`);
    }
    vouched = last;
    firstUnvouched = undefined;
    report.gaps++;
    report.removedRows += last - expected + 1;
    previous = line.hash;
    covered = last;
    coveredId = null;
    remember(last, line.hash);
    expected = last + 1;
    lastGap = { first, last };
  };

  const onSeal = (line) => {
    started = true;
    if (!isPosition(line.position) || !isHash(line.hash) || typeof line.signedAt !== "string") return fail(line.position ?? null, null, "a signed head is malformed");
    const { position } = line;
    const what = `the signed head at position ${position} (signed at ${line.signedAt})`;
    if (lastSeal && position <= lastSeal.position) return fail(position, null, `${what} comes after the one at position ${lastSeal.position}: out of chain order`);
    const problem = signatureProblem(what, { kind: "head", table: report.table, position, hash: line.hash, signedAt: line.signedAt }, line);
    if (problem) return fail(position, position === covered ? coveredId : null, problem);
    if (position > covered) {
      return fail(position, null, `${what} says the chain reached it, but the rows at positions ${covered + 1}–${position} are not in the bundle: rows were removed`, {
        expectedHash: line.hash,
      });
    }
    if (position === covered) {
      if (line.hash !== previous) {
        return fail(position, coveredId, `${what} holds another hash than the rows reach: a row at positions ${vouched + 1}–${position} was changed and the hashes after it recomputed since it was signed`, {
          expectedHash: line.hash,
          storedHash: previous,
        });
      }
      vouched = position;
      firstUnvouched = undefined;
    } else if (!(lastGap && position >= lastGap.first && position < lastGap.last)) {
      // Below the last position, only inside the gap just stepped over can a head be: its rows are gone.
      return fail(position, null, `${what} comes after position ${covered}: out of chain order`);
    }
    report.seals++;
    lastSeal = { position, hash: line.hash, signedAt: line.signedAt, keyId: line.keyId };
  };

  const onEnd = (line) => {
    end = line;
    for (const name of ["rows", "gaps", "seals"]) {
      if (line[name] !== report[name]) return fail(null, null, `the bundle's end counts ${line[name]} ${name}, but ${report[name]} came: lines were removed or added`);
    }
    const head = line.head ?? null;
    if ((head?.position ?? null) !== (lastSeal?.position ?? null) || (head && head.hash !== lastSeal.hash)) {
      return fail(head?.position ?? null, null, `the bundle's end names head ${head ? `#${head.position}` : "none"}, but its last signed head is ${lastSeal ? `#${lastSeal.position}` : "none"}`);
    }
    if (firstUnvouched) {
      return fail(firstUnvouched.position, firstUnvouched.id, `no signed head covers the rows from position ${firstUnvouched.position} on: they were added after the bundle's last signed head`);
    }
  };

  for await (const text of lines) {
    lineNo++;
    if (text.trim() === "") continue;
    let line;
    try {
      line = JSON.parse(text);
    } catch {
      throw new CannotCheck(`line ${lineNo} is not JSON: the file is damaged or not a bundle`);
    }
    if (line && line.error) throw new CannotCheck(`the export stopped before the end (line ${lineNo}): ${line.error.message ?? JSON.stringify(line.error)}`);
    if (!header) onHeader(line);
    else if (end) fail(null, null, `line ${lineNo} comes after the bundle's end`);
    else if (line.type === "anchor") onAnchor(line);
    else if (line.type === "row") onRow(line);
    else if (line.type === "gap") onGap(line);
    else if (line.type === "seal") onSeal(line);
    else if (line.type === "end") onEnd(line);
    else fail(null, null, `line ${lineNo} is of an unknown type ${JSON.stringify(line.type)}`);
    if (broken) break;
  }
  if (!header) throw new CannotCheck("the file is empty");
  if (!broken && !end) throw new CannotCheck(`the bundle ends early (no end line after line ${lineNo}): the download was cut short?`);
  report.ok = !broken;
  if (lastSeal) report.signedHead = lastSeal;
  if (unsigned.length > 0) report.trustedUnsigned = unsigned;
  if (broken) report.firstBroken = broken;
  return report;
}

function verifyBundleFile(file, options) {
  if (!existsSync(file)) return Promise.reject(new CannotCheck("no such file"));
  const stream = createReadStream(file, { encoding: "utf8" });
  const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
  return verifyBundleLines(lines, options).finally(() => {
    lines.close();
    stream.destroy();
  });
}

/** The report for a person: what held, or the first thing that did not. */
function describeBundle(report, file) {
  const name = `${report.table} bundle`;
  const keyNote =
    report.keysCheckedAgainst === "given"
      ? `signatures checked against the key you gave (${report.keyIds.join(", ")})`
      : `signatures checked against the key inside the bundle (${report.keyIds.join(", ")}): that shows the bundle is whole, not whose it is; pass --public-key with the instance's key (/.well-known/hookplane-ledger-keys) to know it came from that instance`;
  if (report.firstBroken) {
    const b = report.firstBroken;
    const where = [b.id !== null && b.id !== undefined ? `row id ${b.id}` : undefined, b.position !== null && b.position !== undefined ? `position ${b.position}` : undefined]
      .filter(Boolean)
      .join(", ");
    const lines = [`${name}: BROKEN${where ? ` at ${where}` : ""}: ${b.problem}`];
    if (b.expectedHash) lines.push(`  expected hash ${b.expectedHash}`);
    if (b.storedHash) lines.push(`  stored hash   ${b.storedHash}`);
    lines.push(`  ${report.rows} rows checked before it; ${keyNote}`);
    return lines.join("\n");
  }
  const lines = [`${name}: intact (${file}, exported ${report.exportedAt ?? "at an unknown time"})`];
  lines.push(`  ${report.rows} rows${report.anchor ? `, starting after retention at #${report.anchor.position} (rows created before ${report.anchor.before} were deleted)` : ""}`);
  if (report.gaps > 0) lines.push(`  ${report.removedRows} rows of ${report.gaps} deleted runs' gaps stepped over`);
  if (report.signedHead) {
    lines.push(`  ${report.seals} signed heads verified; the newest: #${report.signedHead.position} ${report.signedHead.hash}, signed at ${report.signedHead.signedAt}`);
    lines.push("  (rows after that head are not in the bundle: compare it with a head noted elsewhere to see that none were cut off)");
  } else {
    lines.push("  no signed head: the chain is empty");
  }
  for (const what of report.trustedUnsigned ?? []) lines.push(`  taken on trust (--trust-unsigned): ${what}`);
  lines.push(`  ${keyNote}`);
  return lines.join("\n");
}

module.exports = { CannotCheck, verifyBundleFile, verifyBundleLines, describeBundle, parsePublicKeys, signedMessage };
