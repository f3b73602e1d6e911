# syntax=docker/dockerfile:1
# The sales order service as an image: build the workspace, `pnpm deploy --prod` the server into
# a folder of its own, and run that folder with plain `node` as a non-root user.
#   docker build -t sales-order-service .
# See docs/deployment.md (configuration, migrations, the scale-out compose file).

ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS build
ENV TURBO_TELEMETRY_DISABLED=1 CI=true
RUN npm install --global pnpm@10.34.9
WORKDIR /repo
# Dependencies first, so the layer is reused while only the sources change.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .pnpmfile.cjs ./
COPY apps/server/package.json apps/server/
COPY packages/contract/package.json packages/contract/
COPY packages/pricing/package.json packages/pricing/
COPY packages/client/package.json packages/client/
COPY apps/order-entry/package.json apps/order-entry/
# The server's command-line launcher: the workspace root links it as a bin at install.
COPY apps/server/bin apps/server/bin
RUN pnpm install --frozen-lockfile
COPY . .
# The build generates the Prisma client into the server's dist and builds the order entry page
# (a dependency of the server); deploy copies dist, the Prisma schema and migrations, the page's
# static files, and production dependencies only.
RUN pnpm build --filter=@sales-order/server... \
 && pnpm --filter @sales-order/server deploy --prod /app

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
# A bounded heap: V8 otherwise lets garbage pile up to a share of the machine's memory (400 MB
# per process under load); 192 MB old space + 4 MB semi-spaces keep a process under about
# 180 MB (docs/performance.md, "Runtime, cores and memory"). Cluster workers inherit it.
ENV NODE_OPTIONS="--max-old-space-size=192 --max-semi-space-size=4"
WORKDIR /app
# Owned by root and read-only to the service; only the embedded database's folder is writable.
COPY --from=build /app /app
RUN mkdir /data && chown node:node /data
# The image's unprivileged user (uid 1000).
USER node
EXPOSE 3000
# Ready = the database answers; an unready instance is taken out of the load balancer.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
