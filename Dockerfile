# syntax=docker/dockerfile:1
# Two stages: `build` compiles (the Prisma client is generated into src/generated and compiled into
# dist/ with the rest), `runtime` holds production dependencies and dist/ only, and runs as `node`.
#   docker build -t community-platform .
#   docker run IMAGE                       -> the API (PORT, default 3000)
#   docker run IMAGE node dist/worker.js   -> the webhook delivery worker
#   docker run IMAGE node node_modules/prisma/build/index.js migrate deploy
#   docker run IMAGE node dist/cli/main.js user:create --email ... (or dist/cli/seed.js)

# Node 22 (LTS): argon2's prebuilt linux-x64 binary, which the runtime stage loads (it installs with
# --ignore-scripts, so nothing is compiled), crashes with SIGSEGV on load under Node 20.20 and loads
# under 22 and 24. .ci/run proves the runtime install below with this stage's Node major.
FROM node:22-bookworm-slim AS build
WORKDIR /app
# The schema and Prisma config come first: `npm install` runs `prisma generate` (postinstall).
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
# the webhook portal (Vite + Preact), built into dist/portal by npm run build
COPY portal ./portal
RUN npm run build

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production
# glibc malloc: a fixed 1 MiB mmap threshold returns each login's 19 MiB argon2 block (src/bootstrap/memory-flags.ts)
ENV MALLOC_MMAP_THRESHOLD_=1048576
# The metrics port (METRICS_PORT) listens on loopback unless told otherwise; in a container loopback is
# the container's own, where Prometheus cannot reach it. So every interface of the container, and the
# port is never published: only its private network reaches it (docs/operations.md, "Metrics and alerts").
ENV METRICS_HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the generated client is already compiled into dist/, and argon2 ships prebuilt binaries
# (N-API: one per platform, whatever the Node version). Keep these flags in step with .ci/run.
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
# prisma/ and prisma.config.ts are what `migrate deploy` needs. The build stage's install ran Prisma's own
# install script, which downloads the native schema engine into @prisma/engines when the build can reach
# Prisma's host; copied here, `migrate deploy` runs it (PRISMA_SCHEMA_ENGINE=auto), and the WebAssembly
# stand-in in prisma/ only where the download failed (docs/architecture.md#prisma-and-its-schema-engine).
COPY --from=build /app/node_modules/@prisma/engines ./node_modules/@prisma/engines
COPY prisma.config.ts ./
COPY prisma ./prisma
COPY --from=build /app/dist ./dist
RUN chown -R node:node /app
USER node
EXPOSE 3000
# /api/health/ready: PostgreSQL and Redis answer and every migration in prisma/ is applied.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--max-semi-space-size=4", "dist/main.js"]
