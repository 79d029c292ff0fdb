/**
 * The architecture as lint rules (README, Folders). Three layers:
 * - lib/core: pure TypeScript (the hook runtime, the agent loop, the dialects, the outbound guard,
 *   workspace confinement). It imports nothing of Next, React, the database, the queue, or the
 *   layers above it, so it can be read and tested alone.
 * - lib/platform: database-facing plumbing every feature stands on (API edge, auth, stream,
 *   security, export). It imports no feature.
 * - lib/features/<name>: one feature's server code, actions and components. Another feature is
 *   reached only through its public modules, listed in FEATURE_API below: the list is the seam
 *   between features, and growing it is a design decision made in review.
 * Tests may cross any boundary (they assemble the system).
 */
import tseslint from "typescript-eslint";

const FEATURE_API = {
  agents: ["agent-service"],
  alerts: ["alert-config", "alert-schedule"],
  approvals: ["approval-waiter", "approval-waiter-registry", "approval-notices", "approvers", "always-allow", "decision-page", "slack-interactions", "reach-config", "components/approval-card"],
  audit: ["chain-sealer"],
  bridge: ["session-ingest"],
  "config-io": [],
  costs: ["price-table", "published-prices", "project-prices"],
  hooks: ["hook-service", "line-diff", "components/hook-badges"],
  runs: [
    "run-session",
    "run-service",
    "hook-runtime-factory",
    "run-actions",
    "components/run-format",
    "components/run-view",
    "components/use-run-change-refresh",
  ],
  retention: ["retention-job"],
  schedules: ["scheduler", "next-run"],
  secrets: ["secret-store", "secret-box"],
  settings: [],
  sso: [],
  tools: ["tool-registry"],
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

function featureRule(name) {
  const publicModules = Object.entries(FEATURE_API)
    .filter(([other]) => other !== name)
    .flatMap(([other, modules]) => modules.map((m) => `${other}/${m}`));
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
              message: `lib/features/${name} reaches another feature only through its public modules (FEATURE_API in eslint.config.mjs).`,
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
  ...Object.keys(FEATURE_API).map(featureRule),
  {
    // One configuration module reads the environment (lib/platform/config/config.ts); the rest
    // gets typed, checked values from it. Tests, benchmarks and build-time config may read it.
    files: ["**/*.{ts,tsx}"],
    ignores: [...TESTS, "lib/platform/config/config.ts", "test/**", "bench/**", "e2e/**", "*.config.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read configuration through lib/platform/config (getConfig()), where every variable is declared and checked." },
      ],
    },
  },
);
