#!/usr/bin/env bash
# Local stand-ins for the public images docker-compose.yml names, made from Debian's own
# packages, for hosts that cannot pull from Docker Hub. Needs root, mmdebstrap and a running
# Docker daemon; each rootfs is a `mmdebstrap --variant=minbase` tarball loaded with
# `docker import`. Use them through deploy/docker/compose.local.yml:
#
#   deploy/docker/local-images.sh
#   docker compose -f docker-compose.yml -f deploy/docker/compose.local.yml up
#
#   translate-server-local/python:3.11   python:3.12-slim's place (Debian's Python 3.11)
#   translate-server-local/haproxy:2.6   haproxy:2.6's place (Debian's HAProxy 2.6)
#   translate-server-local/prometheus:2  prom/prometheus's place (Debian's Prometheus 2.42)
#   translate-server-local/postgres:15   postgres:15's place (Debian's PostgreSQL 15), with
#                                        postgres-entrypoint.sh as the official entrypoint
#
# The Python image is the one the CPU image is built FROM, so whatever lets pip reach PyPI on
# this host goes into it: the CA certificates in /usr/local/share/ca-certificates (a TLS proxy's
# root), and the wheels in the directories PIP_FIND_LINKS names (e.g. a local CPU torch build),
# with a pip.conf that points at them. Its Python headers are there as in the official image:
# PyTorch compiles kernels against them at run time. An image is kept while its recipe is the
# same (FORCE=1 remakes).
set -euo pipefail

SUITE=${SUITE:-bookworm}
PREFIX=${PREFIX:-translate-server-local}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# recipe FUNCTION: a digest of how an image is made (that function and rootfs), kept as the
# image's label: an image made by an older recipe is made again, FORCE=1 remakes any.
recipe() { declare -f "$1" rootfs | sha256sum | cut -c1-16; }
have() {
    [[ -z ${FORCE:-} ]] && [[ $(docker image inspect \
        -f '{{index .Config.Labels "translate-server.recipe"}}' "$1" 2>/dev/null) == "$2" ]]
}

# rootfs NAME PACKAGES [mmdebstrap options...]: a minbase Debian with PACKAGES, as a tarball.
rootfs() {
    local name=$1 packages=$2
    shift 2
    mmdebstrap --quiet --variant=minbase --include="$packages" \
        --aptopt='APT::Install-Recommends "false"' \
        --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
        "$@" "$SUITE" "$WORK/$name.tar"
}

python_image() {
    local image=$PREFIX/python:3.11
    local recipe; recipe=$(recipe python_image)
    have "$image" "$recipe" && { echo "$image exists"; return; }
    local extra=("$WORK/extra/usr/local/share/ca-certificates" "$WORK/extra/opt/wheels")
    mkdir -p "${extra[@]}"
    cp /usr/local/share/ca-certificates/*.crt "${extra[0]}/" 2>/dev/null || true
    local dir
    for dir in ${PIP_FIND_LINKS:-}; do
        [[ -d $dir ]] && cp "$dir"/*.whl "${extra[1]}/" 2>/dev/null || true
    done
    printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' > "$WORK/extra/etc-pip.conf"
    if compgen -G "${extra[1]}/*.whl" >/dev/null; then
        printf 'find-links = /opt/wheels\n' >> "$WORK/extra/etc-pip.conf"
    fi
    rootfs python ca-certificates,python3,python3-venv,python3-dev,python-is-python3 \
        --customize-hook="sync-in $WORK/extra/usr/local/share/ca-certificates /usr/local/share/ca-certificates" \
        --customize-hook="mkdir -p \"\$1\"/opt/wheels" \
        --customize-hook="sync-in $WORK/extra/opt/wheels /opt/wheels" \
        --customize-hook="upload $WORK/extra/etc-pip.conf /etc/pip.conf" \
        --customize-hook='chroot "$1" update-ca-certificates >/dev/null'
    docker import \
        --change "LABEL translate-server.recipe=$recipe" \
        --change 'ENV LANG=C.UTF-8' \
        --change 'CMD ["python3"]' \
        "$WORK/python.tar" "$image"
}

haproxy_image() {
    local image=$PREFIX/haproxy:2.6
    local recipe; recipe=$(recipe haproxy_image)
    have "$image" "$recipe" && { echo "$image exists"; return; }
    # As the official image: config at /usr/local/etc/haproxy, unprivileged. (`docker import`
    # cannot set STOPSIGNAL: compose.local.yml sets SIGUSR1, HAProxy's drain, as the image does.)
    rootfs haproxy haproxy \
        --customize-hook='mkdir -p "$1"/usr/local/etc/haproxy "$1"/var/lib/haproxy'
    docker import \
        --change "LABEL translate-server.recipe=$recipe" \
        --change 'USER haproxy' \
        --change 'WORKDIR /var/lib/haproxy' \
        --change 'ENTRYPOINT ["/usr/sbin/haproxy", "-W", "-db"]' \
        --change 'CMD ["-f", "/usr/local/etc/haproxy/haproxy.cfg"]' \
        "$WORK/haproxy.tar" "$image"
}

prometheus_image() {
    local image=$PREFIX/prometheus:2
    local recipe; recipe=$(recipe prometheus_image)
    have "$image" "$recipe" && { echo "$image exists"; return; }
    # As the official image: prometheus as nobody, data in /prometheus. (No link to
    # /bin/prometheus: /bin is /usr/bin in Debian 12, a link would replace the binary.)
    rootfs prometheus prometheus \
        --customize-hook='mkdir -p "$1"/prometheus "$1"/etc/prometheus' \
        --customize-hook='chown 65534:65534 "$1"/prometheus'
    docker import \
        --change "LABEL translate-server.recipe=$recipe" \
        --change 'USER 65534:65534' \
        --change 'WORKDIR /prometheus' \
        --change 'ENTRYPOINT ["/usr/bin/prometheus"]' \
        --change 'CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]' \
        "$WORK/prometheus.tar" "$image"
}

postgres_image() {
    local image=$PREFIX/postgres:15
    local recipe; recipe=$(recipe postgres_image)
    have "$image" "$recipe" && { echo "$image exists"; return; }
    # As the official image: the server as postgres, data in /var/lib/postgresql/data (owned by
    # postgres, so a new volume mounted there is too), initialized from POSTGRES_* variables.
    rootfs postgres postgresql-15 \
        --customize-hook="upload $(dirname "$0")/postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh" \
        --customize-hook='chmod 0755 "$1"/usr/local/bin/docker-entrypoint.sh' \
        --customize-hook='mkdir -p "$1"/var/lib/postgresql/data' \
        --customize-hook='chroot "$1" chown -R postgres:postgres /var/lib/postgresql'
    # mmdebstrap empties /run, where Debian's server puts its socket: PGHOST moves it (for the
    # server, pg_isready and psql alike) to a folder postgres owns.
    docker import \
        --change "LABEL translate-server.recipe=$recipe" \
        --change 'USER postgres' \
        --change 'ENV LANG=C.UTF-8 PGDATA=/var/lib/postgresql/data PGHOST=/var/lib/postgresql PATH=/usr/lib/postgresql/15/bin:/usr/local/bin:/usr/bin:/bin' \
        --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
        "$WORK/postgres.tar" "$image"
}

# The images side by side: each one's debootstrap mostly waits on Debian's mirror and the disk.
make_image() {
    local start=$SECONDS status
    # A subshell of its own with errexit on (it is off in one whose status is tested).
    set +e
    (set -e; "${1}_image") > "$WORK/$1.log" 2>&1
    status=$?
    set -e
    sed "s/^/$1: /" "$WORK/$1.log"
    echo "$1: $((SECONDS - start)) s, exit $status"
    return $status
}
pids=()
for image in ${*:-python haproxy prometheus postgres}; do
    make_image "$image" &
    pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
docker image ls "$PREFIX/*"
exit $failed
