# syntax=docker/dockerfile:1
#
# Dockerfile: PostgreSQL 18 with parallel_export_parquet installed.
#
#   docker build -t parallel-export-parquet:18 .
#   docker run -d --name pep --shm-size=1g -e POSTGRES_PASSWORD=secret \
#       -v pep-exports:/exports parallel-export-parquet:18
#   docker exec -it pep psql -U postgres \
#       -c "CREATE EXTENSION parallel_export_parquet" \
#       -c "CREATE TABLE t AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, 1000000) g" \
#       -c "SELECT parallel_export_parquet('t', '/exports/t', 4)"
#
# --shm-size: PostgreSQL keeps dynamic shared memory, where parallel workers
# get their rows, in /dev/shm; Docker's default of 64 MB is too small for
# big parallel contexts ("could not resize shared memory segment ... No space
# left on device"). Give it 1g or more.
#
# Stages:
#   build   postgres:18 + server headers, JDK, Maven, a C toolchain; runs
#           tools/build.sh, the very script the PostgreSQL 18 test leg
#           (tools/pgroot/run.sh 18) runs in a Debian forky root, staged
#           into /out
#   final   postgres:18 + the headless JRE of the same Java release and
#           package suite, so libjvm sits at the path the library was built
#           with (the default of parallel_export_parquet.libjvm_path, checked
#           below); the installed files from /out; the AOT cache trained
#           again here, by this JRE, for the jar at its final path (the
#           cache records both); LICENSE and NOTICE in
#           /usr/share/doc/parallel-export-parquet
#
# The writer's jar carries snappy and zstd natives for x86_64 Linux only: the
# image is linux/amd64 (on another host: docker build --platform linux/amd64).

ARG PG_MAJOR=18
ARG JAVA_MAJOR=25
# The base of both stages: the official image. CI builds this Dockerfile on
# a stand-in with the same layout (tools/image/run.sh, BASE=...); nobody
# else needs to set it.
ARG BASE=postgres:${PG_MAJOR}

FROM ${BASE} AS build
ARG JAVA_MAJOR
# PG_MAJOR (18) is set by the base image; postgresql-server-dev comes from its
# PGDG apt source, the JDK and Maven from its Debian suite. The man directory
# keeps the JDK's update-alternatives happy on a slim base.
RUN set -eux; \
	mkdir -p /usr/share/man/man1; \
	apt-get update; \
	apt-get install -y --no-install-recommends \
		build-essential ca-certificates maven \
		"openjdk-${JAVA_MAJOR}-jdk-headless" "postgresql-server-dev-${PG_MAJOR}"; \
	rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/.m2 \
	PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config" DESTDIR=/out tools/build.sh

FROM ${BASE}
ARG JAVA_MAJOR
RUN set -eux; \
	mkdir -p /usr/share/man/man1; \
	apt-get update; \
	apt-get install -y --no-install-recommends "openjdk-${JAVA_MAJOR}-jre-headless"; \
	rm -rf /var/lib/apt/lists/*
COPY --from=build /out/ /
# tools/build.sh runtime: checks that the library's default libjvm_path (the
# build JDK's libjvm) exists here, then trains the class cache with this
# JRE for the jar at its final path (tools/train-cache.sh: an AOT cache on
# this JDK 25). tools/pgroot/run.sh runs it too.
RUN --mount=type=bind,source=tools,target=/tmp/pep-tools \
	set -eux; \
	PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config" /tmp/pep-tools/build.sh runtime; \
	mkdir -p /exports; \
	chown postgres:postgres /exports
# The project's license, and the notices of the third-party software the jar
# and this stage add to the base (tools/image/hygiene.sh checks that they are
# the repository's). Last, so that a NOTICE edit trains no cache again.
COPY LICENSE NOTICE /usr/share/doc/parallel-export-parquet/
VOLUME /exports
# A worker per requested part, on top of PostgreSQL's own parallel queries.
CMD ["postgres", "-c", "max_worker_processes=32", "-c", "max_parallel_workers=16"]
