# The suite's image for the Kubernetes Jobs (qualify-shards.yaml, qualify-merge.yaml): TRTMC's
# serving image (CUDA and the `trtmc` CLI the target's build and gate commands call) plus Go,
# this repository and its host dependencies. The Docker engine is the pod's sidecar, not here.
# Build from the repository root and push to a registry the cluster pulls from:
#   docker build -f containers/k8s/suite.Dockerfile --build-arg TRTMC_IMAGE=<TRTMC image> -t <registry>/trtmc-qual/suite:<tag> .
ARG TRTMC_IMAGE=nvcr.io/nvidia/trtmc-serve:latest
ARG GO_IMAGE=golang:1.26-bookworm
FROM ${GO_IMAGE} AS go

FROM ${TRTMC_IMAGE}
COPY --from=go /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:/root/go/bin:$PATH \
    CGO_ENABLED=1 \
    QUAL_CACHE=/var/cache/trtmc-qual
WORKDIR /src
COPY . /src
# apt packages, Go modules and the parity venv (the same script as `make deps`), then qual.
RUN bash harness/scripts/deps.sh \
 && go build -o /usr/local/bin/qual ./harness/cmd/qual
