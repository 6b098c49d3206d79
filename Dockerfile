# Image for the api, worker and projector roles (docker-compose.yml runs one container per role).
#
#   docker build -t membership-service .
#   docker run --rm membership-service node dist/runtime/cli.js --help
#
# Node 24 is an LTS line (maintenance since October 2026, supported until April 2028). The suite runs on
# Node 20 here (engines: >=20); no image has been built on this machine (no Docker engine). NODE_IMAGE picks
# another base, e.g. --build-arg NODE_IMAGE=node:26-bookworm-slim for the newer LTS line.
# Only the paths copied below enter the image: tests, benchmarks, docs and the typed client stay out
# (.dockerignore keeps them out of the build context as well).
ARG NODE_IMAGE=node:24-bookworm-slim

# Compiles runtime/, classes/ and examples/ to dist/ (TypeScript and @types are dev dependencies).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# the lockfile records every platform's optional packages, so npm ci accepts it (scripts/ensure-deps.js)
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY runtime runtime
COPY classes classes
COPY examples examples
# classes/Workflow/config.ts imports schemas/Workflow/config.json
COPY schemas schemas
RUN npm run build

# Production dependencies only, installed from the same lockfile.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=8080
WORKDIR /app
# What the runtime reads from disk besides dist/: package.json (it marks the project root the
# folders below are found from), the input schemas, the workflow rule files, the Lua scripts of
# the state store and rate limiter (next to their compiled modules), and the examples the first
# commands load (seed.json, import/). Everything belongs to root: the service cannot rewrite
# its own code; it writes to DATA_DIR only.
COPY package.json ./
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY runtime/actor/lua dist/runtime/actor/lua
COPY schemas schemas
COPY workflow-configs workflow-configs
COPY examples examples
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Operator CLI in a running container: node dist/runtime/cli.js <command> (README, "Docker")
CMD ["node", "dist/runtime/main.js"]
