# The Docker engine sidecar of qualify-shards.yaml: dockerd with the NVIDIA runtime registered,
# so the server containers the suite starts can be given the pod's GPU. Build and push:
#   docker build -f containers/k8s/dind-nvidia.Dockerfile -t <registry>/trtmc-qual/dind-nvidia:<tag> containers/k8s
FROM debian:bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker.io iptables ca-certificates curl gpg \
 && curl -fsSL https://nvidia.github.io/libnvidia-container/gpgkey \
    | gpg --dearmor -o /usr/share/keyrings/nvidia-container-toolkit-keyring.gpg \
 && echo 'deb [signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] https://nvidia.github.io/libnvidia-container/stable/deb/$(ARCH) /' \
    > /etc/apt/sources.list.d/nvidia-container-toolkit.list \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nvidia-container-toolkit \
 && nvidia-ctk runtime configure --runtime=docker \
 && rm -rf /var/lib/apt/lists/*
ENTRYPOINT []
CMD ["dockerd", "--host=tcp://127.0.0.1:2375", "--tls=false"]
