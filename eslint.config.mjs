/**
 * The architecture as lint rules (README, Folders). Three layers, and the database beneath them:
 * - lib/core: pure TypeScript (the hook runtime, the agent loop, the dialects, the outbound guard,
 *   workspace confinement). It imports nothing of Next, React, the database, the queue, or the
 *   layers above it, so it can be read and tested alone.
 * - lib/platform: database-facing plumbing every feature stands on (API edge, auth, stream,
 *   security, export). It imports no feature.
 * - lib/features/<name>: one feature's server code, actions and components. A feature reaches only
 *   the features it declares (FEATURE_DEPS below), and those only through their public modules
 *   (FEATURE_API): the two lists are the seams between features, and growing either is a design
 *   decision made in review. lib/process, the composition root, is the one place above them all.
 * - db/: the schema and its queries. It imports only db/, lib/core, libraries and the process's
 *   foundation in lib/platform (PROCESS_FOUNDATION below: the configuration, the logger, the
 *   instance's keys), which itself imports nothing of db/ or of the rest of lib/platform, so the
 *   database never reaches up into what stands on it.
 * - components/: the shared UI kit. It imports no feature (a feature's components live with it).
 * Tests may cross any boundary (they assemble the system).
 */
import tseslint from "typescript-eslint";

export const FEATURE_API = {
  agents: ["agent-service"],
  alerts: ["alert-config", "alert-schedule"],
  approvals: [
    "approval-decisions",
    "approval-endings",
    "approval-port",
    "approval-settled",
    "approval-waiter",
    "approval-waiter-registry",
    "approval-notices",
    "parked-run-waker",
    "decision-page",
    "slack-interactions",
    "reach-config",
    "components/approval-card",
    // Its declared responses (what the API and the stream send): readable by every feature that shows an approval.
    "schema",
  ],
  audit: ["chain-sealer"],
  bridge: ["session-ingest"],
  "config-io": ["agent-installs"],
  costs: ["published-prices", "project-prices"],
  hooks: [
    "hook-service",
    "hook-enforcement",
    "hook-runtime-factory",
    "operator-code-hooks",
    "components/hook-badges",
    // Its declared inputs and responses: the agent's page lists the agent's hooks with its type.
    "schema",
  ],
  // What app/ uses of runs (run-service, run-actions) is not a seam between features.
  runs: ["run-session"],
  retention: ["retention-job"],
  schedules: ["scheduler", "next-run"],
  secrets: ["secret-store", "secret-port"],
  settings: [],
  sso: [],
  tools: ["tool-registry"],
};

/**
 * The features each feature uses, and so the only ones it may import (through their public
 * modules). A "feature/module" entry allows that one module only. The edges point one way, from
 * the top (bridge, audit, import and export) down to the bottom (secrets, tools, costs), and
 * lib/architecture-boundaries.test.ts checks the imports make no two-way pair and no cycle.
 * Approvals answer what runs ask: a decision wakes its parked run through the waker runs installs
 * (approvals/parked-run-waker.ts), never by calling runs. No feature but runs itself reaches runs,
 * except the bridge, whose bridged sessions are runs (its run session).
 */
export const FEATURE_DEPS = {
  secrets: [],
  tools: [],
  costs: [],
  settings: [],
  retention: [],
  hooks: ["secrets", "tools"],
  agents: ["hooks"],
  approvals: ["hooks", "secrets"],
  sso: ["secrets"],
  schedules: ["agents", "hooks"],
  "config-io": ["agents", "hooks", "schedules"],
  alerts: ["approvals", "config-io", "secrets"],
  runs: ["agents", "approvals", "costs", "hooks", "tools"],
  bridge: ["approvals", "costs", "hooks", "runs/run-session"],
  audit: ["agents", "hooks", "secrets"],
};

const TESTS = ["**/*.test.ts", "**/*.test.tsx"];

/** Import specifiers (alias and relative forms) a layer may not use. */
const DATABASE_AND_FRAMEWORK = [
  { group: ["next", "next/*", "react", "react-dom", "react/*"], message: "lib/core is pure: no Next or React." },
  {
    group: ["@/db", "@/db/*", "drizzle-orm", "drizzle-orm/*", "postgres", "@electric-sql/*", "pg-boss"],
    message: "lib/core is pure: no database or queue.",
  },
  { group: ["server-only"], message: "lib/core runs anywhere: no server-only markers." },
];
const ABOVE_CORE = [
  {
    group: ["@/lib/features/*", "@/lib/platform/*", "@/app/*", "@/components/*", "**/lib/features/**", "**/lib/platform/**"],
    message: "lib/core imports only lib/core.",
  },
  { regex: "^(\\.\\./)+(features|platform|db|app|components)(/|$)", message: "lib/core imports only lib/core." },
];
const FEATURES_FROM_PLATFORM = [
  { group: ["@/lib/features/*", "**/lib/features/**", "@/app/*"], message: "lib/platform imports no feature." },
  { regex: "^(\\.\\./)+(features|app)(/|$)", message: "lib/platform imports no feature." },
];

/**
 * What db/ may use of lib/platform: read the configuration, log, sign with the instance's ledger
 * key. Each module here imports only lib/core, libraries and the others here.
 */
const PROCESS_FOUNDATION = [
  "lib/platform/config/config.ts",
  "lib/platform/config/config-schema.ts",
  "lib/platform/config/config-values.ts",
  "lib/platform/config/config-database-variables.ts",
  "lib/platform/config/config-telemetry-variables.ts",
  "lib/platform/config/variable-spec.ts",
  "lib/platform/logger.ts",
  "lib/platform/security/secret-box.ts",
  "lib/platform/security/instance-secret-box.ts",
  "lib/platform/security/ledger-signing-key.ts",
];
const FOUNDATION_IMPORTS = ["@/lib/platform/config/config", "@/lib/platform/logger", "@/lib/platform/security/ledger-signing-key"];
// Specifiers are paths of kebab-case words: only the dots and slashes need escaping.
const escaped = (specifier) => specifier.replace(/[./]/g, "\\$&");
const ABOVE_DATABASE = [
  {
    regex: `^@/lib/platform/(?!(?:${FOUNDATION_IMPORTS.map((m) => escaped(m.slice("@/lib/platform/".length))).join("|")})$)`,
    message: "db/ imports only db/, lib/core, libraries and the process's foundation (PROCESS_FOUNDATION in eslint.config.mjs).",
  },
  {
    group: ["@/lib/features/*", "@/app/*", "@/components/*"],
    message: "db/ imports only db/, lib/core, libraries and the process's foundation (PROCESS_FOUNDATION in eslint.config.mjs).",
  },
  { regex: "^(\\.\\./)+(lib|app|components)(/|$)", message: "db/ reaches the layers with the @/ alias, so the boundary rules can see it." },
];
const FOUNDATION_STAYS_BELOW = [
  {
    group: ["@/db", "@/db/*", "@/lib/features/*", "@/app/*", "@/components/*", "**/db/**", "**/lib/features/**"],
    message: "The process's foundation stands below the database: it imports only lib/core, libraries and the foundation.",
  },
  {
    regex: `^@/lib/platform/(?!(?:${PROCESS_FOUNDATION.map((f) => escaped(f.slice("lib/platform/".length, -".ts".length))).join("|")})$)`,
    message: "The process's foundation stands below the database: it imports only lib/core, libraries and the foundation.",
  },
];
const FEATURES_FROM_COMPONENTS = [
  { group: ["@/lib/features/*", "**/lib/features/**", "@/app/*"], message: "components/ imports no feature: a feature's components live in its folder." },
];

function featureRule(name) {
  const publicModules = FEATURE_DEPS[name].flatMap((dep) => {
    const [other, only] = dep.split("/");
    return FEATURE_API[other].filter((m) => !only || m === dep.slice(other.length + 1)).map((m) => `${other}/${m}`);
  });
  // Module paths are kebab-case words and slashes: nothing to escape in a regex.
  const allowed = [`${name}/.*`, ...publicModules].join("|");
  return {
    files: [`lib/features/${name}/**/*.{ts,tsx}`],
    ignores: TESTS,
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: `^@/lib/features/(?!(?:${allowed})$)`,
              message: `lib/features/${name} reaches another feature only through its public modules (FEATURE_API in eslint.config.mjs), and only a feature it declares (FEATURE_DEPS).`,
            },
            { group: ["../../*", "../../../*"], message: "Reach outside the feature with the @/ alias, so the boundary rules can see it." },
          ],
        },
      ],
    },
  };
}

export default tseslint.config(
  {
    ignores: [".next/**", ".next-*/**", "node_modules/**", "test-results/**", "playwright-report/**", ".hookplane/**", "drizzle/**", "next-env.d.ts"],
  },
  {
    files: ["**/*.{ts,tsx}"],
    languageOptions: { parser: tseslint.parser },
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  {
    files: ["lib/core/**/*.{ts,tsx}"],
    ignores: TESTS,
    rules: { "no-restricted-imports": ["error", { patterns: [...DATABASE_AND_FRAMEWORK, ...ABOVE_CORE] }] },
  },
  {
    files: ["lib/platform/**/*.{ts,tsx}"],
    ignores: TESTS,
    rules: { "no-restricted-imports": ["error", { patterns: FEATURES_FROM_PLATFORM }] },
  },
  {
    files: ["db/**/*.{ts,tsx}"],
    ignores: TESTS,
    rules: { "no-restricted-imports": ["error", { patterns: ABOVE_DATABASE }] },
  },
  {
    files: PROCESS_FOUNDATION,
    rules: { "no-restricted-imports": ["error", { patterns: [...FEATURES_FROM_PLATFORM, ...FOUNDATION_STAYS_BELOW] }] },
  },
  {
    files: ["components/**/*.{ts,tsx}"],
    ignores: TESTS,
    rules: { "no-restricted-imports": ["error", { patterns: FEATURES_FROM_COMPONENTS }] },
  },
  ...Object.keys(FEATURE_API).map(featureRule),
  {
    // One configuration module reads the environment (lib/platform/config/config.ts); the rest
    // gets typed, checked values from it. Tests, benchmarks and build-time config may read it, and
    // next-built-config.ts sets the one variable through which Next takes a serialized config.
    files: ["**/*.{ts,tsx}"],
    ignores: [...TESTS, "lib/platform/config/config.ts", "lib/process/next-built-config.ts", "test/**", "bench/**", "e2e/**", "*.config.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read configuration through lib/platform/config (getConfig()), where every variable is declared and checked." },
      ],
    },
  },
);
