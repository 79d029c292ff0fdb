/** Random bearer secrets (session cookies, API tokens): only their SHA-256 is ever stored. */
import { createHash, randomBytes } from "node:crypto";

export function newSecretToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

export function hashSecretToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
