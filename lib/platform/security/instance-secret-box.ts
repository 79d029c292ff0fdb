/**
 * The instance's secret box: sealed secrets are opened with it and the ledger signing key is
 * derived from it. Below the database (db/ signs seals with the key), so it reads only the
 * configuration.
 */
import { getConfig } from "@/lib/platform/config/config";
import { createSecretBox, loadSecretKey, type SecretBox } from "./secret-box";

const BOX_KEY = Symbol.for("hookplane.secretBox");
type GlobalWithBox = typeof globalThis & { [BOX_KEY]?: SecretBox };

/** The process's box, made on first use (the first secret, or the first seal, which signs with a key derived from it). */
export function getSecretBox(): SecretBox {
  const g = globalThis as GlobalWithBox;
  const config = getConfig();
  return (g[BOX_KEY] ??= createSecretBox(loadSecretKey({ key: config.HOOKPLANE_SECRET_KEY, dataDir: config.HOOKPLANE_DATA_DIR })));
}

/** Tests switch keys; the next getSecretBox() reads the environment again. */
export function forgetSecretBox(): void {
  delete (globalThis as GlobalWithBox)[BOX_KEY];
}
