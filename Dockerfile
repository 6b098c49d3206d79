# Image for the api, worker and projector roles (see docker-compose.yml).
# Keep node_modules, dist and data dirs out of the build context (.dockerignore).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci refuses lockfiles that lack optional platform packages a registry
# mirror doesn't serve; npm install resolves to the same tree then.
RUN npm ci --no-audit --no-fund || npm install --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=8080
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
CMD ["node", "dist/runtime/main.js"]
