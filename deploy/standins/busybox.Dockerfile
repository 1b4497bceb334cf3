# Stand-in for the official busybox image (scripts/containers.sh): the local Debian base
# plus Debian's busybox, its applets (httpd, wget) on PATH.
ARG BASE_IMAGE=localhost/debian:12
FROM ${BASE_IMAGE}
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends busybox \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /opt/busybox/bin && busybox --install -s /opt/busybox/bin
ENV PATH=/opt/busybox/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
USER nobody
CMD ["sh"]
