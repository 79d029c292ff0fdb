/**
 * Secret values at rest: AES-256-GCM with a 32-byte key kept outside the database, so a copy of
 * the database alone reveals nothing. The key comes from `HOOKPLANE_SECRET_KEY` (base64 or hex) or,
 * when unset, from `secret.key` in the data folder, generated once with mode 0600.
 * Each value is sealed with its secret's name as associated data: a ciphertext copied onto another
 * name does not decrypt.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";

const VERSION = "v1";
const IV_BYTES = 12;
const KEY_BYTES = 32;
export const KEY_FILE_NAME = "secret.key";

export class SecretKeyError extends Error {}

/** A stored value that this key cannot open: another key, or a tampered row. */
export class SecretDecryptError extends Error {}

export interface SecretBox {
  seal(name: string, value: string): string;
  open(name: string, sealed: string): string;
  /**
   * A 32-byte key for one purpose (HKDF-SHA256 of the instance key, the purpose as info): what
   * signs decision links, without the sealing key itself ever leaving this module.
   */
  derive(purpose: string): Buffer;
}

/** Accepts 32 bytes as 64 hex characters or as base64 (with or without padding). */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
  if (key.length !== KEY_BYTES) {
    throw new SecretKeyError(`The secret key must be ${KEY_BYTES} bytes, as 64 hex characters or base64; got ${key.length} bytes`);
  }
  return key;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== KEY_BYTES) throw new SecretKeyError(`The secret key must be ${KEY_BYTES} bytes; got ${key.length}`);
  return {
    derive(purpose) {
      return Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), `hookplane:${purpose}`, KEY_BYTES));
    },
    seal(name, value) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(name, "utf8"));
      const ciphertext = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
      return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), ciphertext.toString("base64")].join(":");
    },
    open(name, sealed) {
      const [version, iv, tag, ciphertext] = sealed.split(":");
      if (version !== VERSION || !iv || !tag || ciphertext === undefined) {
        throw new SecretDecryptError(`Secret ${name} is stored in an unknown format`);
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
        decipher.setAAD(Buffer.from(name, "utf8"));
        decipher.setAuthTag(Buffer.from(tag, "base64"));
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64")), decipher.final()]).toString("utf8");
      } catch {
        throw new SecretDecryptError(
          `Secret ${name} could not be decrypted: the key (HOOKPLANE_SECRET_KEY or ${KEY_FILE_NAME}) is not the one it was stored with`,
        );
      }
    },
  };
}

/**
 * The key of this process: `key` (HOOKPLANE_SECRET_KEY) when given, else the data folder's key file. Several processes on one data folder race to create the key file:
 * `wx` lets exactly one write it and the others read the winner's key.
 */
export function loadSecretKey(options: { key?: string; dataDir: string }): Buffer {
  if (options.key) return parseSecretKey(options.key);
  const file = path.join(options.dataDir, KEY_FILE_NAME);
  try {
    return parseSecretKey(readFileSync(file, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(options.dataDir, { recursive: true });
  try {
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return parseSecretKey(readFileSync(file, "utf8"));
}
