# syntax=docker/dockerfile:1
#
# infertrace in a small image (docs/install.md):
#
#   docker build -t infertrace --build-arg VERSION=v0.5.0 --build-arg COMMIT=$(git rev-parse HEAD) .
#   docker run --rm -v "$PWD:/data" infertrace run --client 'logs/client/*.jsonl' --out out
#
# DuckDB is C++ linked in through cgo, so the binary needs the glibc and
# libstdc++ it was built against: the builder and the runtime are the same
# Debian release (bookworm). golang:1.26 alone may be a newer Debian whose
# glibc bookworm-slim does not have.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# The modules first, so that a change to the source reuses their layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The build context has no .git (.dockerignore), so the build information
# holds no commit: a release passes its tag and commit here, and
# infertrace version shows them.
ARG VERSION=""
ARG COMMIT=""
RUN CGO_ENABLED=1 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X main.stampedVersion=${VERSION} -X main.stampedCommit=${COMMIT}" \
      -o /out/infertrace ./cmd/infertrace \
 && /out/infertrace version

FROM debian:bookworm-slim
# An unprivileged user; /data is where the logs are mounted and the
# store is written.
RUN useradd --system --user-group --uid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin infertrace \
 && mkdir /data && chown infertrace:infertrace /data
COPY --from=build /out/infertrace /usr/local/bin/infertrace
USER infertrace:infertrace
WORKDIR /data
ENTRYPOINT ["infertrace"]
CMD ["--help"]
