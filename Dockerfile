# card-sandbox in a container (README, "Container image"). Two stages: the first builds the
# package from this repository (`npm ci` builds it; `npm pack` packs it, its `prepare` finding
# that build current, scripts/build-stamp.mjs) and installs the tarball the way a client team
# installs it, production dependencies only; the second is that install on a slim Node image, run
# by the unprivileged `node` user.
FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles its addon when no prebuilt one can be fetched
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund \
 && npm pack --silent --pack-destination /tmp \
 && mkdir /opt/card-sandbox \
 && cd /opt/card-sandbox \
 && echo '{ "name": "card-sandbox-image", "private": true }' > package.json \
 && npm install --omit=dev --no-audit --no-fund /tmp/card-sandbox-*.tgz

FROM node:20-bookworm-slim
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
