/**
 * The operator's code hooks (`defineHook` modules in HOOKPLANE_HOOKS_DIR), loaded once per process
 * at start, before any run, and read synchronously by every hook runtime. Loaded only when running
 * code is on (HOOKPLANE_ALLOW_CODE_EXECUTION); a module that fails to load is logged and left out.
 */
import { loadCodeHooks, type CodeHookRegistry } from "@/lib/core/hooks/code-hooks";
import { logger } from "@/lib/platform/logger";
import { getConfig, type Config } from "@/lib/platform/config/config";

const KEY = Symbol.for("hookplane.codeHooks");
type GlobalWithHooks = typeof globalThis & { [KEY]?: CodeHookRegistry };

export async function loadOperatorCodeHooks(config: Config = getConfig()): Promise<CodeHookRegistry | undefined> {
  const dir = config.HOOKPLANE_HOOKS_DIR;
  if (!dir || !config.HOOKPLANE_ALLOW_CODE_EXECUTION) return undefined;
  const { registry, errors } = await loadCodeHooks(dir);
  for (const error of errors) logger.error({ file: error.file, reason: error.message }, "code hook not loaded");
  logger.info({ dir, hooks: registry.ids() }, "code hooks loaded");
  (globalThis as GlobalWithHooks)[KEY] = registry;
  return registry;
}

export function operatorCodeHooks(): CodeHookRegistry | undefined {
  return (globalThis as GlobalWithHooks)[KEY];
}
