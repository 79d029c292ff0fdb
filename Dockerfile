# syntax=docker/dockerfile:1
# Hookplane: one image for the web process (npm start) and the workers (npm run worker).
# Build: docker build -t hookplane .   Run: see compose.yaml and deploy/helm/hookplane.

# --- dependencies, with the toolchain native modules may need
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# --- the build: the dashboard (.next) and the compiled server and worker (dist/)
FROM deps AS build
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# --- the runtime: production dependencies, the build, the migrations; no sources, no compiler
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOSTNAME=0.0.0.0 \
    PORT=3000 \
    HOOKPLANE_DATA_DIR=/data \
    HOOKPLANE_SKIP_BUILD=1
WORKDIR /app
# util-linux gives setpriv and unshare, the shell sandbox's tools (HOOKPLANE_ALLOW_CODE_EXECUTION).
RUN apt-get update && apt-get install -y --no-install-recommends util-linux tini && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown node:node /data
COPY --from=build --chown=node:node /app/package.json /app/package-lock.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/.next ./.next
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/public ./public
COPY --from=build --chown=node:node /app/drizzle ./drizzle
COPY --from=build --chown=node:node /app/scripts ./scripts
COPY --from=build --chown=node:node /app/bin ./bin
COPY --from=build --chown=node:node /app/next.config.ts ./next.config.ts
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# tini reaps orphans and passes SIGTERM to node, whose graceful shutdown finishes or checkpoints runs.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--max-semi-space-size=64", "scripts/start.mjs"]
