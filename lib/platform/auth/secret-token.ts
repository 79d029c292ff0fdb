/** Random bearer secrets (session cookies, API tokens): only their SHA-256 is ever stored. */
import { hash, randomBytes } from "node:crypto";

export function newSecretToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

/** Every authenticated request hashes its token: the one-shot digest, half the cost of a Hash object. */
export function hashSecretToken(token: string): string {
  return hash("sha256", token, "hex");
}
