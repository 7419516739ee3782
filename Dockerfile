# card-sandbox in a container (README, "Container image"). Two stages: the first builds the
# package from this repository (`npm ci` builds it; `npm pack` packs it, its `prepare` finding
# that build current, scripts/build-stamp.mjs) and installs the tarball the way a client team
# installs it, production dependencies only; the second is that install on a slim Node image, run
# by the unprivileged `node` user.
#
# The base is a build argument: the official Node 20 image unless told otherwise (CI builds on a
# local stand-in of it, .ci/image). Behind a proxy that re-signs TLS, give the build its CA
# bundle as a build secret, used by npm during the build only and never stored in the image:
#   docker build --secret id=extra_ca,src=/path/to/ca.pem .
#   podman build --format docker --secret id=extra_ca,src=/path/to/ca.pem .
# (podman's default OCI format drops the HEALTHCHECK below, with only a warning.)
ARG NODE_IMAGE=node:20-bookworm-slim
FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles its addon when no prebuilt one can be fetched
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# a download that fails on a flaky network is tried again
ENV npm_config_fetch_retries=5 \
    npm_config_fetch_retry_mintimeout=20000 \
    npm_config_fetch_retry_maxtimeout=120000 \
    npm_config_update_notifier=false
WORKDIR /src
COPY . .
# `npm ci` compiles better-sqlite3's addon (or fetches a prebuilt one); the tarball's install runs
# no install script and takes that addon when its better-sqlite3 is the same version, so the addon
# is compiled once; another version is built for itself. The last line loads it.
RUN --mount=type=secret,id=extra_ca \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi \
 && npm ci --no-audit --no-fund \
 && npm pack --silent --pack-destination /tmp \
 && mkdir /opt/card-sandbox \
 && cd /opt/card-sandbox \
 && echo '{ "name": "card-sandbox-image", "private": true }' > package.json \
 && npm install --omit=dev --no-audit --no-fund --ignore-scripts /tmp/card-sandbox-*.tgz \
 && addon=node_modules/better-sqlite3 \
 && if [ "$(node -p "require('/src/$addon/package.json').version")" = "$(node -p "require('./$addon/package.json').version")" ]; \
    then mkdir -p $addon/build/Release && cp /src/$addon/build/Release/better_sqlite3.node $addon/build/Release/; \
    else npm rebuild better-sqlite3; fi \
 && node -e "new (require('better-sqlite3'))(':memory:').close()" \
 && rm /tmp/card-sandbox-*.tgz

FROM ${NODE_IMAGE}
# Every flag reads CARD_SANDBOX_<NAME> (README, "Flags"). In a container the sandbox listens on
# every interface; the Host names it answers to besides its own (the container's name and
# addresses, localhost) and the address its links show are set here, and by `docker run -e` or
# compose.
ENV NODE_ENV=production \
    CARD_SANDBOX_HOST=0.0.0.0 \
    CARD_SANDBOX_PORT=4010 \
    CARD_SANDBOX_ALLOWED_HOST=card-sandbox \
    CARD_SANDBOX_PUBLIC_URL=http://localhost:4010
COPY --from=build /opt/card-sandbox /opt/card-sandbox
# a place for a database file (CARD_SANDBOX_DB=/data/sandbox.sqlite) on a mounted volume
RUN mkdir /data && chown node:node /data
USER node
WORKDIR /home/node
EXPOSE 4010
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.CARD_SANDBOX_PORT || 4010) + '/__sandbox/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/opt/card-sandbox/node_modules/.bin/card-sandbox"]
