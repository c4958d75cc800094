# llsd-hook image: compiled JavaScript, configs/ and production dependencies only.
#   docker build -t llsd-hook:0.1.0 .
# The base is pinned to one Node.js release; bump it deliberately.
ARG NODE_IMAGE=docker.io/library/node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# npm reads the optional build secret "npmrc" as its user configuration (a registry
# mirror, its CA certificates, a token): docker build --secret id=npmrc,src=$HOME/.npmrc .
# It is mounted for the install only and never stored in the image.
RUN --mount=type=secret,id=npmrc NPM_CONFIG_USERCONFIG=/run/secrets/npmrc npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The hook server only: the CLI's render snapshot (npm run build's second step) is not needed here,
# nor are source maps (tsconfig.build.json writes them for the CLI run from the repository).
RUN npx tsc -p tsconfig.build.json --sourceMap false

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# npm's cache and logs, and the compile cache Node.js keeps for npm in /tmp, stay out of the image.
RUN --mount=type=secret,id=npmrc NPM_CONFIG_USERCONFIG=/run/secrets/npmrc \
    npm ci --omit=dev --ignore-scripts && rm -rf /root/.npm /tmp/node-compile-cache
COPY --from=build /src/dist ./dist
COPY configs ./configs
# The image's non-root "node" user (uid 1000); the manifests run with a read-only root filesystem.
USER 1000:1000
EXPOSE 8080 9464
ENTRYPOINT ["node", "dist/server/start.js"]
