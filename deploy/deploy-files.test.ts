/**
 * The deployment files, linted: no container runtime that can pull base images and no `helm` is on
 * this machine (nor in Debian's packages), so these checks stand in for `docker build`, hadolint and
 * `helm template`. They read the files as those tools would and check what matters for running
 * Hookplane: stages and users, the health check, what the image ships, the services compose
 * starts, and that every value and helper a chart template names exists.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { SERVER_NODE_FLAGS } from "@/scripts/node-flags.cjs";

const root = path.resolve(import.meta.dirname, "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

describe("Dockerfile", () => {
  const lines = read("Dockerfile")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const stages = lines.filter((l) => l.startsWith("FROM ")).map((l) => /\bAS\s+(\S+)/i.exec(l)?.[1]);
  const runtime = lines.slice(lines.findLastIndex((l) => l.startsWith("FROM ")));

  test("is multi-stage, and every COPY --from names an earlier stage", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const line of lines.filter((l) => l.includes("--from="))) expect(stages).toContain(/--from=(\S+)/.exec(line)![1]);
  });

  test("the image runs as a user that is not root, behind an init that forwards SIGTERM", () => {
    const user = runtime.filter((l) => l.startsWith("USER ")).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/USER\s+(root|0)(\s|:|$)/);
    expect(runtime.join("\n")).toMatch(/ENTRYPOINT \["\/usr\/bin\/tini", "--"\]/);
  });

  test("its health check asks /api/health, and it starts the compiled server without building", () => {
    expect(runtime.find((l) => l.startsWith("HEALTHCHECK"))).toContain("/api/health");
    expect(runtime.find((l) => l.startsWith("CMD"))).toContain("scripts/start.mjs");
    expect(runtime.join("\n")).toContain("HOOKPLANE_SKIP_BUILD=1");
    const copied = runtime.filter((l) => l.startsWith("COPY")).join("\n");
    for (const part of ["/app/.next", "/app/dist", "/app/drizzle", "/app/node_modules", "/app/public"]) expect(copied).toContain(part);
  });

  test("the build context leaves out what the build makes and the local database", () => {
    const ignored = read(".dockerignore").split("\n");
    for (const entry of ["node_modules", ".next", "dist", ".hookplane"]) expect(ignored).toContain(entry);
  });
});

describe("compose.yaml", () => {
  const compose = parse(read("compose.yaml"), { merge: true }) as { services: Record<string, Record<string, unknown>> };
  const env = (service: string) => compose.services[service].environment as Record<string, string>;

  test("PostgreSQL, one web process and two workers, all on the same database", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["postgres", "web", "worker"]);
    expect(compose.services.worker.deploy).toEqual({ replicas: 2 });
    expect(compose.services.worker.command).toEqual(["node", ...SERVER_NODE_FLAGS, "scripts/start.mjs", "--worker"]);
    expect(env("web").DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(env("worker").DATABASE_URL).toBe(env("web").DATABASE_URL);
    expect(env("web").HOOKPLANE_WORKER_CONCURRENCY).toBe("0");
    expect(compose.services.web.ports).toEqual(["3000:3000"]);
  });

  test("the app waits for a healthy database, and every process shares the sealing key", () => {
    for (const service of ["web", "worker"]) {
      expect(compose.services[service].depends_on).toEqual({ postgres: { condition: "service_healthy" } });
      expect(env(service).HOOKPLANE_SECRET_KEY).toMatch(/^\$\{HOOKPLANE_SECRET_KEY:\?/);
    }
    expect(compose.services.postgres.healthcheck).toBeDefined();
  });

  test("metrics when a token is set: every process gets it, a worker its own port only with it", () => {
    for (const service of ["web", "worker"]) expect(env(service).HOOKPLANE_METRICS_TOKEN).toBe("${HOOKPLANE_METRICS_TOKEN:-}");
    expect(env("worker").HOOKPLANE_METRICS_PORT).toBe("${HOOKPLANE_METRICS_TOKEN:+9464}");
    expect(env("web").HOOKPLANE_METRICS_PORT).toBeUndefined();
  });
});

describe("Helm chart", () => {
  const chartDir = "deploy/helm/hookplane";
  const chart = parse(read(`${chartDir}/Chart.yaml`)) as Record<string, unknown>;
  const values = parse(read(`${chartDir}/values.yaml`)) as Record<string, unknown>;
  const templates = Object.fromEntries(readdirSync(path.join(root, chartDir, "templates")).map((f) => [f, read(`${chartDir}/templates/${f}`)]));
  const all = Object.values(templates).join("\n");

  test("a v2 chart whose every .Values path exists in values.yaml", () => {
    expect(chart).toMatchObject({ apiVersion: "v2", name: "hookplane" });
    const paths = [...all.matchAll(/\.Values((?:\.\w+)+)/g)].map((m) => m[1].slice(1).split("."));
    expect(paths.length).toBeGreaterThan(10);
    for (const keys of paths) {
      let node: unknown = values;
      for (const key of keys) {
        expect(node && typeof node === "object" && key in (node as object), `.Values.${keys.join(".")}`).toBe(true);
        node = (node as Record<string, unknown>)[key];
      }
    }
  });

  test("every helper a template includes is defined, and template actions are balanced", () => {
    const defined = new Set([...all.matchAll(/define "([^"]+)"/g)].map((m) => m[1]));
    for (const [, name] of all.matchAll(/include "([^"]+)"/g)) expect(defined, name).toContain(name);
    for (const [file, text] of Object.entries(templates)) {
      const opens = (text.match(/\{\{-?\s*(if|range|define|with)\b/g) ?? []).length;
      const ends = (text.match(/\{\{-?\s*end\s*-?\}\}/g) ?? []).length;
      expect(ends, file).toBe(opens);
    }
  });

  test("web and worker Deployments, a migration Job before install and upgrade, the key from a Secret", () => {
    expect(templates["web-deployment.yaml"]).toMatch(/kind: Deployment[\s\S]*path: \/api\/health/);
    expect(templates["worker-deployment.yaml"]).toMatch(/kind: Deployment[\s\S]*"--worker"/);
    expect(templates["migrate-job.yaml"]).toMatch(/kind: Job[\s\S]*"helm.sh\/hook": pre-install,pre-upgrade[\s\S]*dist\/migrate.mjs/);
    expect(templates["_helpers.tpl"]).toMatch(/name: HOOKPLANE_SECRET_KEY\s+valueFrom:\s+secretKeyRef:/);
    expect(templates["_helpers.tpl"]).toMatch(/runAsNonRoot: true/);
  });

  test("metrics, when enabled: the token from a Secret in every pod, a worker's port named and annotated", () => {
    expect(values.metrics).toMatchObject({ enabled: false, workerPort: 9464, existingSecretKey: "HOOKPLANE_METRICS_TOKEN" });
    expect(templates["_helpers.tpl"]).toMatch(
      /if \.Values\.metrics\.enabled \}\}\s+- name: HOOKPLANE_METRICS_TOKEN\s+valueFrom:\s+secretKeyRef:\s+name: \{\{ required [^}]*\.Values\.metrics\.existingSecret \}\}/,
    );
    const worker = templates["worker-deployment.yaml"];
    expect(worker).toMatch(/- name: HOOKPLANE_METRICS_PORT\s+value: \{\{ \.Values\.metrics\.workerPort \| quote \}\}/);
    expect(worker).toMatch(/ports:\s+- name: metrics\s+containerPort: \{\{ \.Values\.metrics\.workerPort \}\}/);
    expect(worker).toMatch(/include "hookplane.metricsAnnotations" \.Values\.metrics\.workerPort/);
    expect(templates["web-deployment.yaml"]).toMatch(/include "hookplane.metricsAnnotations" \.Values\.web\.port/);
    expect(templates["_helpers.tpl"]).toMatch(/prometheus\.io\/scrape: "true"/);
  });
});

describe("every launcher of a server or worker process", () => {
  // scripts/node-flags.cjs: the flags are given at start or not at all (V8 sizes its heap then).
  const node = ["node", ...SERVER_NODE_FLAGS].join(" ");
  const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
  const asCommand = (line: string) => (JSON.parse(/\[.*\]/.exec(line)![0]) as string[]).join(" ");

  test("starts node with the server flags: npm start, npm run worker and serve, the image, the chart, compose", () => {
    expect(scripts.start).toBe(`exec ${node} scripts/start.mjs`);
    expect(scripts.worker).toBe(`exec ${node} scripts/start.mjs --worker`);
    expect(scripts.serve).toBe(`NODE_ENV=production ${node} dist/server.mjs`);
    const cmd = read("Dockerfile").split("\n").filter((l) => l.startsWith("CMD [")).at(-1)!;
    expect(asCommand(cmd)).toBe(`${node} scripts/start.mjs`);
    for (const [file, rest] of [["web-deployment.yaml", "scripts/start.mjs"], ["worker-deployment.yaml", "scripts/start.mjs --worker"]]) {
      const args = read(`deploy/helm/hookplane/templates/${file}`).split("\n").find((l) => l.trim().startsWith("args: ["))!;
      expect(asCommand(args), file).toBe(`${node} ${rest}`);
    }
  });

  test("`hookplane worker` passes them to the worker it starts", () => {
    expect(read("bin/lib/worker.cjs")).toMatch(/const args = \[\.\.\.SERVER_NODE_FLAGS, /);
  });
});
