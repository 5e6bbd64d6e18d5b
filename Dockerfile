# The reference implementation as one image; the service is the command:
#   docker run -p 8888:8888 fortune-tck/reference serve configserver --host 0.0.0.0 --uri /data/config-repo --demo-repository
# docker-compose.yml runs the whole stack from it.
#
# Two ways to get the reference's binary, as build targets (the suite itself is the target tck, below):
#   release (the default, the last stage): compiles cmd/reference from this checkout in the golang image;
#   local:  takes build/reference, compiled beforehand outside Docker (make images does:
#           CGO_ENABLED=0 go build -o build/reference ./cmd/reference), so the build needs no Go image and no
#           module proxy. The legacy builder runs every stage up to its target, so local comes first.
# BASE is the runtime image: anything with /tmp; the binary is static and needs nothing else. Tests point it
# at a base built from Debian's packages (scripts/docker-deps.sh), since no registry is reachable there.
ARG BASE=gcr.io/distroless/static-debian12:nonroot
ARG GO_IMAGE=golang:1.26-bookworm
# DEBIAN is the tck image's base: a Debian whose packages give Chromium, git and the CA certificates.
ARG DEBIAN=debian:bookworm-slim

FROM ${BASE} AS runtime
# The data directory (configuration repository, gateway manifests, the authorization server's state) belongs
# to the unprivileged user, so that a named volume mounted there starts out writable.
COPY --chown=65532:65532 docker/data/ /data/
# The service writes its URL here once it listens; the health check asks that URL.
ENV REFERENCE_READY_FILE=/tmp/reference.url
USER 65532:65532
WORKDIR /data
ENTRYPOINT ["/usr/local/bin/reference"]
CMD ["--help"]
HEALTHCHECK --interval=5s --timeout=5s --start-period=5s --retries=3 CMD ["/usr/local/bin/reference", "health"]

FROM runtime AS local
COPY build/reference /usr/local/bin/reference

# The suite as an image (target tck), for any CI: the tck binary, compiled beforehand outside Docker
# (CGO_ENABLED=0 go build -o build/tck ./cmd/tck), with Chromium for the browser scenarios, git and CA
# certificates; it runs as an unprivileged user, and as the caller with --user, so that the reports are theirs:
#   docker build --target tck --build-arg DEBIAN=debian:bookworm-slim -t fortune-tck/tck .
#   docker run --rm --network host --user "$(id -u):$(id -g)" -v "$PWD:/work" fortune-tck/tck \
#     run --target /work/target.yaml --expect /work/expectations.yaml --reports /work/reports
# After local: the legacy builder runs every stage up to its target, so building tck builds runtime and local
# too (cheap: a test gives BASE=fortune-tck/base:local and build/reference), and building local no Chromium.
FROM ${DEBIAN} AS tck
# Any user may run it (--user): HOME is writable by all, and TCK_IMAGE tells tck to say so when a reports
# folder is not writable. What changes the configuration only comes first, while the file system is small (the
# legacy builder copies it for every instruction, and on a vfs storage driver that is slow); the binary comes
# last, so that a new one rebuilds one layer.
ENV HOME=/tmp TCK_IMAGE=fortune-tck/tck
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/tck"]
CMD ["--help"]
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium git ca-certificates >/dev/null \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
USER 65532:65532
COPY build/tck /usr/local/bin/tck

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/reference ./cmd/reference

FROM runtime AS release
COPY --from=build /out/reference /usr/local/bin/reference
