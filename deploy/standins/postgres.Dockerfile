# Stand-in for the official postgres:15 image (scripts/containers.sh): the local Debian
# base plus Debian's postgresql-15, with an entrypoint that honours POSTGRES_USER,
# POSTGRES_PASSWORD, POSTGRES_DB and PGDATA like the official one (password auth from
# the network, scram-sha-256).
ARG BASE_IMAGE=localhost/debian:12
FROM ${BASE_IMAGE}
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres: /var/lib/postgresql /var/run/postgresql
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY --chmod=0755 postgres-entrypoint /usr/local/bin/docker-entrypoint.sh
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
EXPOSE 5432
