# syntax=docker/dockerfile:1
# The svc image: one static binary on distroless, run as a non-root user.
#   docker build -t svc .
#   docker run -p 8080:8080 -v svc-data:/data svc
#   docker run --rm -v svc-data:/data svc brands add --name "Acme Shoes" --domain acme.example
# .ci/run checks that the build command below works and gives a static binary.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Pure Go (the SQLite driver is modernc.org/sqlite): no cgo, no libc.
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w" -o /out/svc ./cmd/svc
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/svc /usr/local/bin/svc
COPY --from=build --chown=65532:65532 /out/data /data
# Listen on every interface inside the container; keep the store on a volume.
ENV SVC_ADDR=0.0.0.0:8080 \
    SVC_DATA=/data
VOLUME ["/data"]
EXPOSE 8080
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/svc"]
CMD ["serve"]
