import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, test } from "vitest";
import { SecretDecryptError, SecretKeyError, createSecretBox, loadSecretKey, parseSecretKey } from "./secret-box";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "hookplane-key-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("secret box", () => {
  const box = createSecretBox(randomBytes(32));

  test("seals and opens a value; the sealed text does not contain it and differs each time", () => {
    const sealed = box.seal("SLACK_TOKEN", "xoxb-very-secret");
    expect(sealed).not.toContain("xoxb");
    expect(sealed).toMatch(/^v1:/);
    expect(box.seal("SLACK_TOKEN", "xoxb-very-secret")).not.toBe(sealed);
    expect(box.open("SLACK_TOKEN", sealed)).toBe("xoxb-very-secret");
  });

  test("a wrong key, another name or a tampered ciphertext fails with a clear error", () => {
    const sealed = box.seal("API_KEY", "value-1234");
    const other = createSecretBox(randomBytes(32));
    expect(() => other.open("API_KEY", sealed)).toThrow(SecretDecryptError);
    expect(() => other.open("API_KEY", sealed)).toThrow(/API_KEY could not be decrypted: the key .* is not the one it was stored with/);
    expect(() => box.open("OTHER_KEY", sealed)).toThrow(SecretDecryptError);
    const parts = sealed.split(":");
    parts[3] = Buffer.from("tampered!!").toString("base64");
    expect(() => box.open("API_KEY", parts.join(":"))).toThrow(SecretDecryptError);
    expect(() => box.open("API_KEY", "garbage")).toThrow(/unknown format/);
  });

  test("unicode and empty-ish values survive the round trip", () => {
    expect(box.open("X", box.seal("X", "päss wörd 🔑"))).toBe("päss wörd 🔑");
  });
});

describe("secret key", () => {
  test("parses 32 bytes as hex or base64 and refuses anything else", () => {
    const key = randomBytes(32);
    expect(parseSecretKey(key.toString("hex"))).toEqual(key);
    expect(parseSecretKey(key.toString("base64"))).toEqual(key);
    expect(() => parseSecretKey("short")).toThrow(SecretKeyError);
    expect(() => parseSecretKey(randomBytes(16).toString("base64"))).toThrow(/must be 32 bytes/);
  });

  test("HOOKPLANE_SECRET_KEY wins; without it a key file is made once with mode 0600 and reused", () => {
    const dir = tempDir();
    const key = randomBytes(32);
    expect(loadSecretKey({ key: key.toString("hex"), dataDir: dir })).toEqual(key);

    const generated = loadSecretKey({ dataDir: dir });
    const file = path.join(dir, "secret.key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(parseSecretKey(readFileSync(file, "utf8"))).toEqual(generated);
    expect(loadSecretKey({ dataDir: dir })).toEqual(generated);
  });

  test("creates the data folder when it does not exist yet", () => {
    const dir = path.join(tempDir(), "nested", "data");
    expect(loadSecretKey({ dataDir: dir })).toHaveLength(32);
  });
});
