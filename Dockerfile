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
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s CMD ["parley", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["parley"]
CMD ["serve"]
