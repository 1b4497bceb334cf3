# syntax=docker/dockerfile:1
# frota's image: a build stage with the toolchain, a slim runtime stage with the binary,
# DuckDB's shared library and only the Debian packages the binary links against.
#
#   docker build -t frota .                                    # from Docker Hub's Debian
#   docker build --build-arg BUILD_IMAGE=localhost/debian:12 \
#                --build-arg RUNTIME_IMAGE=localhost/debian:12 -t frota .   # a local base
#
# docs/deploy.md has the rest; scripts/containers.sh builds it on a machine without a
# registry.
ARG BUILD_IMAGE=docker.io/library/debian:12
ARG RUNTIME_IMAGE=docker.io/library/debian:12-slim

# ---------------------------------------------------------------------------- build
FROM ${BUILD_IMAGE} AS build
ARG DEBIAN_FRONTEND=noninteractive
# The libraries of scripts/setup.sh, without the test servers, browsers and sanitizers.
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      build-essential cmake ninja-build pkg-config git ca-certificates \
      librdkafka-dev libpq-dev libprotobuf-dev protobuf-compiler \
      libsimdjson-dev libfast-float-dev libfmt-dev libspdlog-dev libcli11-dev \
      libcurl4-openssl-dev libcpp-httplib-dev nlohmann-json3-dev \
      zlib1g-dev libzstd-dev libzip-dev libhowardhinnant-date-dev libtomlplusplus-dev tzdata \
      libgtest-dev libgmock-dev libbenchmark-dev nodejs npm python3 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# DuckDB's C library from the npm registry (.dockerignore leaves third_party/ out), then
# the release binary alone. Behind a proxy that re-signs TLS with its own authority, pass
# that authority's bundle as the build secret `ca_bundle` (docs/deploy.md): npm trusts it
# for this step only, and no layer keeps it.
RUN --mount=type=secret,id=ca_bundle,required=false \
    if [ -f /run/secrets/ca_bundle ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca_bundle; fi \
 && scripts/fetch_duckdb.sh \
 && cmake --preset release >/dev/null \
 && cmake --build build/release --target frota -j "$(nproc)" \
 && mkdir -p /out \
 && strip -o /out/frota build/release/frota \
 && cp third_party/duckdb/lib/libduckdb.so /out/ \
 && scripts/container-runtime-packages.sh /out/frota /out/libduckdb.so >/out/runtime-packages

# -------------------------------------------------------------------------- runtime
FROM ${RUNTIME_IMAGE} AS runtime
ARG DEBIAN_FRONTEND=noninteractive
# Straight to their places: a file copied to /tmp and removed later would stay in a layer.
COPY --from=build /out/frota /usr/local/bin/frota
COPY --from=build /out/libduckdb.so /usr/local/lib/libduckdb.so
COPY --from=build /out/runtime-packages /tmp/runtime-packages
# The packages that own the shared libraries frota and libduckdb.so load (computed in the
# build stage), certificates for the feeds' HTTPS, zone data for local hours.
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends ca-certificates tzdata \
      $(cat /tmp/runtime-packages) \
 && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages \
 && ldconfig \
 && groupadd --system --gid 10001 frota \
 && useradd --system --uid 10001 --gid frota --home-dir /var/lib/frota --shell /usr/sbin/nologin frota \
 && mkdir -p /var/lib/frota /var/lib/frota-feed /srv/www \
 && chown frota:frota /var/lib/frota /var/lib/frota-feed /srv/www
COPY --chmod=0755 deploy/frota-http /usr/local/bin/frota-http
COPY deploy/collector.toml deploy/collector.feed-server.toml /etc/frota/
USER frota
WORKDIR /var/lib/frota
# /healthz of `frota collect` (200 while a feed gets through) on port 9464
# (metrics_listen of /etc/frota/collector.toml); compose.yaml gives the other services
# checks of their own.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["frota-http", "/healthz"]
ENTRYPOINT ["frota"]
CMD ["--help"]
