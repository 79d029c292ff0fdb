/**
 * The hook runtime's SecretPort over the secret store, for a run's hooks and for what acts on a
 * project's behalf outside a run (approval and alert notices reading a bot token).
 */
import type { Db } from "@/db/client";
import type { SecretPort, SecretValue } from "@/lib/core/hooks/ports";
import { getConfig, type Config } from "@/lib/platform/config/config";
import type { SecretBox } from "@/lib/platform/security/secret-box";
import { getSecretBox } from "@/lib/platform/security/instance-secret-box";
import { resolveSecret } from "./secret-store";

/**
 * A secret as a hook gets it, from the project the run belongs to (an instance-wide hook too reads
 * the running project's secrets), resolved the one way Settings shows it (secret-store.ts,
 * resolveSecret: the project's store first, then `HOOKPLANE_SECRET_<NAME>`). Each name is read and
 * decrypted at most once per runtime (one run); a failed read is not cached, so the next hook
 * tries again. A value the key cannot open throws, and the hook fails with that message rather
 * than running without its secret.
 */
export function storeSecretPort(db: Db, projectId: string, box: () => SecretBox = getSecretBox, config: Config = getConfig()): SecretPort {
  const cache = new Map<string, Promise<SecretValue | undefined>>();
  return {
    get(name) {
      let value = cache.get(name);
      if (!value) {
        value = resolveSecret(db, box, { projectId, name, envSecrets: config.envSecrets }).then((resolved) => resolved && { value: resolved.value, hosts: resolved.hosts });
        value.catch(() => cache.delete(name));
        cache.set(name, value);
      }
      return value;
    },
  };
}
