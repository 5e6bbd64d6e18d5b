# The reference implementation as one image; the service is the command:
#   docker run -p 8888:8888 fortune-tck/reference serve configserver --host 0.0.0.0 --uri /data/config-repo --demo-repository
# docker-compose.yml runs the whole stack from it.
#
# Two ways to get the binary, as build targets:
#   release (the default, the last stage): compiles cmd/reference from this checkout in the golang image;
#   local:  takes build/reference, compiled beforehand outside Docker (make images does:
#           CGO_ENABLED=0 go build -o build/reference ./cmd/reference), so the build needs no Go image and no
#           module proxy. The legacy builder runs every stage up to its target, so local comes first.
# BASE is the runtime image: anything with /tmp; the binary is static and needs nothing else. Tests point it
# at a base built from Debian's packages (scripts/docker-deps.sh), since no registry is reachable there.
ARG BASE=gcr.io/distroless/static-debian12:nonroot
ARG GO_IMAGE=golang:1.26-bookworm

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

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/reference ./cmd/reference

FROM runtime AS release
COPY --from=build /out/reference /usr/local/bin/reference
