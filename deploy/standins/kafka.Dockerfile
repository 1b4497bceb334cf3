# Stand-in for the official apache/kafka image, for machines with no image registry
# (scripts/containers.sh): the local Debian base, a Java runtime and the broker jars that
# scripts/services/kafka.sh fetch resolves from Maven Central (the build context's libs/).
# It honours the same environment as apache/kafka (KAFKA_* -> server.properties,
# CLUSTER_ID) and has /opt/kafka/bin/kafka-topics.sh, so compose.yaml runs it unchanged.
ARG BASE_IMAGE=localhost/debian:12
FROM ${BASE_IMAGE}
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 1000 --user-group --home-dir /opt/kafka appuser \
 && mkdir -p /opt/kafka/bin /opt/kafka/config /var/lib/kafka/data \
 && chown -R appuser: /opt/kafka/config /var/lib/kafka
COPY libs/ /opt/kafka/libs/
COPY --chmod=0755 kafka-run kafka-tool /opt/kafka/bin/
RUN ln -s kafka-tool /opt/kafka/bin/kafka-topics.sh \
 && ln -s kafka-tool /opt/kafka/bin/kafka-storage.sh
USER appuser
CMD ["/opt/kafka/bin/kafka-run"]
