# Parley: build the single binary, run it as a non-root user with /data as the PGlite volume.
# (Not built in this project's CI: its machines have no Docker engine.)
FROM oven/bun:1.4 AS build
WORKDIR /src
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile
COPY . .
RUN bun build --compile src/main.ts --outfile /out/parley

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /data parley \
 && mkdir -p /data && chown parley /data
COPY --from=build /out/parley /usr/local/bin/parley
USER parley
WORKDIR /data
ENV DATA_DIR=/data PORT=3000 HOST=0.0.0.0
# `docker stop` sends SIGTERM, then SIGKILL after 10 s (Docker's default stop timeout). Shutdown
# spends up to SHUTDOWN_GRACE_MS letting replies finish, then stores the cut-off ones and closes
# the store: with the server's default grace (10 s) the kill could land before the PGlite folder
# is closed. 5 s leaves that room. Raising the grace? Raise the stop timeout with it:
# `docker run --stop-timeout 20 …`, or `stop_grace_period: 20s` in compose.
ENV SHUTDOWN_GRACE_MS=5000
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s CMD ["parley", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["parley"]
CMD ["serve"]
