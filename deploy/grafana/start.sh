#!/bin/sh
# Grafana's entrypoint in docker-compose.yml: the administrator's password, then Grafana (the
# command given, the image's /run.sh). No admin/admin: at the first start, the password is
# GRAFANA_ADMIN_PASSWORD where it is set (.env), or else a random one, printed here once.
# It is kept in Grafana's data folder, which GF_SECURITY_ADMIN_PASSWORD__FILE names; Grafana
# itself sets it only when it creates its database (change it later in Grafana, or with
# `grafana cli admin reset-admin-password`).
set -eu
file=${GF_PATHS_DATA:-/var/lib/grafana}/admin-password
if [ ! -s "$file" ]; then
    umask 077
    if [ -n "${GRAFANA_ADMIN_PASSWORD:-}" ]; then
        printf '%s' "$GRAFANA_ADMIN_PASSWORD" > "$file"
    else
        password=$(head -c 32 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 24)
        printf '%s' "$password" > "$file"
        echo "Grafana's admin password (generated; kept in $file): $password"
    fi
fi
unset GRAFANA_ADMIN_PASSWORD
exec "$@"
