# Data Desk: `datadesk serve` in a small image, as a non-root user.
# Give it DATABASE_URL for a real deployment; without it, the embedded
# PostgreSQL keeps its data in /data (mount a volume there).
# The server listens on 0.0.0.0 inside the container (or the published port
# would not reach it), so the browser playground is off by default: it answers
# anyone who reaches the port. To use it, give a token and publish the port on
# loopback only, then open http://localhost:3000/?token=$TOKEN once:
#   docker run -e PLAYGROUND_TOKEN=$(openssl rand -hex 16) -p 127.0.0.1:3000:3000 datadesk

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY fixtures ./fixtures
COPY scripts ./scripts
# `npm install`, not `npm ci`, as .ci/run does: npm ci refuses this lock file because one
# of vite's optional, Windows-only dependencies is not on the registry we reach; npm install
# keeps the lock file's versions. It runs `prepare`, which compiles TypeScript into dist/.
RUN npm install --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# fonts for the locally rendered chart PNGs
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core && rm -rf /var/lib/apt/lists/*
# no PLAYGROUND_TOKEN here: with HOST=0.0.0.0 and no token, serve leaves the playground off
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATADESK_HOME=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY src/db/migrations ./src/db/migrations
COPY src/channels/web/public ./src/channels/web/public
COPY fixtures ./fixtures
COPY prompts ./prompts
COPY manifests ./manifests
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
VOLUME ["/data"]
# a first start (migrations, and with the embedded server its initdb and the demo data)
# took 215 s on a busy 2-core machine: the health check counts only after 300 s
HEALTHCHECK --interval=30s --timeout=5s --start-period=300s \
  CMD node -e "fetch('http://127.0.0.1:3000/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "dist/cli/main.js", "serve"]
