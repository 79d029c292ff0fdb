/**
 * The offline verifier (bin/lib/*.cjs, plain node, no dependencies) must compute exactly what the
 * server computed: the same canonical JSON and chain hash for every value a row can hold after a
 * trip through the bundle's JSON, and the same signed messages, checked with the same key ids.
 */
import { createRequire } from "node:module";
import canonicalize from "canonicalize";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { describe, expect, test } from "vitest";
import { canonicalJson, chainHash, GENESIS_HASH } from "@/lib/core/audit/chain-hash";
import { chainKeyId, chainSigningKeyFromSeed, signedMessage, verifyStatement, type SignedStatement } from "@/lib/core/audit/chain-signature";

const require = createRequire(import.meta.url);
const cjs = require("../../../bin/lib/canonical-json.cjs") as { canonicalJson(v: unknown): string; chainHash(p: string, c: unknown): string; GENESIS_HASH: string };
const verifier = require("../../../bin/lib/chain-bundle-verify.cjs") as {
  signedMessage(s: SignedStatement): string;
  parsePublicKeys(arg: string): { x: string; kid: string }[];
};

/** A row's content as the sealer hashed it, and as the bundle carries it (JSON there and back). */
const tricky: Record<string, unknown>[] = [
  { id: 1, actor: "ops@example.com", before: null, after: { z: { k: "v" }, a: 2 }, created_at: "2025-01-31T12:00:00.123456Z" },
  // Unicode: accents, emoji (a surrogate pair), right-to-left, a line separator, escapes.
  { id: 2, reason: "déjà vu 🚀 שלום \u2028 \u0007 \"quoted\" back\\slash\nnew line\ttab", stdout: "", stderr: null },
  // Keys JCS sorts by UTF-16 code units, not code points: U+FFFF sorts after the surrogate pair of 😀.
  { id: 3, approval: { "\uffff": 1, "😀": 2, é: 3, Z: 4, a: 5, "": 6, "10": 7, "9": 8 } },
  // Numbers in ECMAScript form: exponents, the smallest and largest doubles, -0 as 0, float noise.
  { id: 4, duration_ms: 0.30000000000000004, approval: { n: [1e21, 1e-7, 0.1, -0, 5e-324, 1.7976931348623157e308, 2 ** 53, -1.5e-10, 123456789012345680000] } },
  { id: 5, duration_ms: -0, exit_code: 0, failed: false, matched: true },
  // Nested jsonb with other key order, arrays of mixed values, empty containers.
  { id: 6, output: null, approval: { b: [{ y: 1, x: [] }, null, true, "s", {}], a: { d: { c: { b: { a: 1 } } } } } },
  // A key that means something to objects in JS.
  { id: 7, approval: JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 2}') },
  // Scalars where jsonb holds one.
  { id: 8, before: "just a string", after: 42, approval: [3, 2, 1] },
];

function throughBundle(content: Record<string, unknown>): unknown {
  return JSON.parse(JSON.stringify(content));
}

describe("canonical JSON and the chain hash", () => {
  test.each(tricky.map((content) => [content.id, content] as const))("row %s hashes the same on both sides", (_id, content) => {
    expect(cjs.canonicalJson(throughBundle(content))).toBe(canonicalJson(content));
    expect(cjs.chainHash(GENESIS_HASH, throughBundle(content))).toBe(chainHash(GENESIS_HASH, content));
  });

  test("the exact text of the tricky cases", () => {
    expect(cjs.canonicalJson(throughBundle(tricky[3]))).toBe(
      '{"approval":{"n":[1e+21,1e-7,0.1,0,5e-324,1.7976931348623157e+308,9007199254740992,-1.5e-10,123456789012345680000]},"duration_ms":0.30000000000000004,"id":4}',
    );
    expect(cjs.canonicalJson(throughBundle(tricky[2]))).toBe('{"approval":{"":6,"10":7,"9":8,"Z":4,"a":5,"é":3,"😀":2,"\uffff":1},"id":3}');
    expect(cjs.GENESIS_HASH).toBe(GENESIS_HASH);
  });

  test("a non-finite number (a jsonb value beyond a double) hashes as null on both sides", () => {
    const content = { id: 9, approval: { big: Number.POSITIVE_INFINITY, list: [Number.NaN] }, duration_ms: Number.NEGATIVE_INFINITY };
    // The bundle writes them as null (JSON.stringify), which the verifier reads back.
    expect(cjs.chainHash(GENESIS_HASH, throughBundle(content))).toBe(chainHash(GENESIS_HASH, content));
  });

  test("random nested values agree", () => {
    const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];
    const value = (depth: number): unknown => {
      const kind = depth > 3 ? pick(["n", "s", "b", "z"]) : pick(["n", "s", "b", "z", "a", "o"]);
      if (kind === "n") return pick([Math.random() * 10 ** Math.floor(Math.random() * 40 - 20), -Math.random(), Math.floor(Math.random() * 1e6)]);
      if (kind === "s") return String.fromCodePoint(...Array.from({ length: 5 }, () => pick([0x41, 0xe9, 0x1f600, 0x5d0, 0x2028, 0x22, 0x5c, 0xfffd])));
      if (kind === "b") return Math.random() < 0.5;
      if (kind === "z") return null;
      if (kind === "a") return Array.from({ length: 3 }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: 4 }, () => [String(value(4)), value(depth + 1)]));
    };
    for (let i = 0; i < 300; i++) {
      const content = { id: i, approval: value(0), reason: value(4) };
      expect(cjs.chainHash(GENESIS_HASH, throughBundle(content))).toBe(chainHash(GENESIS_HASH, content));
    }
  });
});

describe("the server's canonical JSON is RFC 8785 as the canonicalize package writes it", () => {
  test.each(tricky.map((content) => [content.id, content] as const))("row %s", (_id, content) => {
    expect(canonicalJson(content)).toBe(canonicalize(content));
  });

  test("dates (toJSON), undefined members and array elements, and random nested values", () => {
    const odd = { at: new Date("2026-11-30T17:00:00.123Z"), gone: undefined, list: [undefined, 1, { deep: [undefined] }], nested: { when: new Date(0) } };
    expect(canonicalJson(odd)).toBe(canonicalize(odd));
    const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];
    const value = (depth: number): unknown => {
      const kind = depth > 3 ? pick(["n", "s", "b", "z"]) : pick(["n", "s", "b", "z", "a", "o"]);
      if (kind === "n") return pick([Math.random() * 10 ** Math.floor(Math.random() * 40 - 20), -Math.random(), Math.floor(Math.random() * 1e6), -0]);
      if (kind === "s") return String.fromCodePoint(...Array.from({ length: 5 }, () => pick([0x41, 0xe9, 0x1f600, 0x5d0, 0x2028, 0x22, 0x5c, 0x7, 0xfffd])));
      if (kind === "b") return Math.random() < 0.5;
      if (kind === "z") return null;
      if (kind === "a") return Array.from({ length: 3 }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: 4 }, () => [String(value(4)), value(depth + 1)]));
    };
    for (let i = 0; i < 500; i++) {
      const content = { id: i, approval: value(0), reason: value(4), actor: value(1) };
      expect(canonicalJson(content)).toBe(canonicalize(content));
    }
  });
});

describe("signed messages", () => {
  const key = chainSigningKeyFromSeed(randomBytes(32));
  const statements: SignedStatement[] = [
    { kind: "head", table: "hook_invocations", position: 42, hash: "a".repeat(64), signedAt: "2025-01-31T12:00:00.000Z" },
    { kind: "anchor", table: "audit_log", position: 7, hash: "b".repeat(64), before: "2025-01-30T00:00:00.000Z" },
    { kind: "gap", table: "hook_invocations", firstPosition: 3, lastPosition: 5, previousHash: "c".repeat(64), hash: "d".repeat(64), runId: "0b9f6c2e-0000-4000-8000-000000000000" },
    { kind: "gap", table: "hook_invocations", firstPosition: 1, lastPosition: 1, previousHash: null, hash: "e".repeat(64), runId: "0b9f6c2e-0000-4000-8000-000000000001" },
  ];

  test("are the same text on both sides, and name their kind and version", () => {
    for (const statement of statements) {
      expect(verifier.signedMessage(statement)).toBe(signedMessage(statement));
      expect(JSON.parse(signedMessage(statement)).kind).toBe(`hookplane.chain-${statement.kind}/1`);
    }
    expect(signedMessage(statements[0])).toBe(
      `{"hash":"${"a".repeat(64)}","kind":"hookplane.chain-head/1","position":42,"signedAt":"2025-01-31T12:00:00.000Z","table":"hook_invocations"}`,
    );
  });

  test("a signature holds for its statement only, and only under its key", () => {
    const head = { kind: "head", table: "hook_invocations", position: 42, hash: "a".repeat(64), signedAt: "2025-01-31T12:00:00.000Z" } as const;
    const signature = key.sign(head);
    expect(verifyStatement(key.publicKey, head, signature)).toBe(true);
    expect(verifyStatement(key.publicKey, { ...head, position: 43 }, signature)).toBe(false);
    expect(verifyStatement(key.publicKey, { ...head, table: "audit_log" }, signature)).toBe(false);
    expect(verifyStatement(chainSigningKeyFromSeed(randomBytes(32)).publicKey, statements[0], signature)).toBe(false);
    expect(verifyStatement(key.publicKey, statements[0], "not base64 at all")).toBe(false);
  });

  test("the same seed makes the same key (every process of an instance signs alike); its id is sha256 of the raw key", () => {
    const seed = randomBytes(32);
    expect(chainSigningKeyFromSeed(seed).publicKey).toEqual(chainSigningKeyFromSeed(Buffer.from(seed)).publicKey);
    expect(key.keyId).toBe(chainKeyId(Buffer.from(key.publicKey.x, "base64url")));
    expect(key.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(key.publicKey).toMatchObject({ kty: "OKP", crv: "Ed25519", use: "sig", alg: "EdDSA", kid: key.keyId });
  });

  test("--public-key takes the well-known document, a JWK, a PEM key or the raw key, and computes the same key id", () => {
    const pem = (() => {
      // The same public key as PEM, through node's own export.
      const { createPublicKey } = require("node:crypto") as typeof import("node:crypto");
      return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: key.publicKey.x }, format: "jwk" }).export({ type: "spki", format: "pem" }).toString();
    })();
    for (const form of [JSON.stringify({ keys: [key.publicKey] }), JSON.stringify(key.publicKey), pem, key.publicKey.x]) {
      expect(verifier.parsePublicKeys(form).map((k) => k.kid)).toEqual([key.keyId]);
    }
    // A kid in the input is not believed: it is computed from the key.
    expect(verifier.parsePublicKeys(JSON.stringify({ ...key.publicKey, kid: "someone-else" }))[0].kid).toBe(key.keyId);
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ type: "spki", format: "pem" }).toString();
    expect(() => verifier.parsePublicKeys(rsa)).toThrow(/no Ed25519 public key/);
    expect(() => verifier.parsePublicKeys("short")).toThrow(/no Ed25519 public key/);
  });
});
