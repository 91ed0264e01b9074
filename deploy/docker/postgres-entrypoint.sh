#!/bin/sh
# The entrypoint of translate-server-local/postgres:15 (deploy/docker/local-images.sh): what
# the official postgres image does with the variables docker-compose.scale.yml sets. On an
# empty data folder: initdb with POSTGRES_USER as the superuser and POSTGRES_PASSWORD as its
# password (scram-sha-256 over the network), then POSTGRES_DB created. Then the server, in
# the foreground, on every interface.
set -eu
bin=/usr/lib/postgresql/15/bin
: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "POSTGRES_PASSWORD is not set: refusing to create a database without one" >&2
        exit 1
    fi
    password_file=$(mktemp)
    printf '%s' "$POSTGRES_PASSWORD" > "$password_file"
    "$bin/initdb" --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile="$password_file" \
        --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8
    rm -f "$password_file"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    if [ "$POSTGRES_DB" != postgres ]; then
        echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\";" |
            "$bin/postgres" --single -D "$PGDATA" postgres >/dev/null
    fi
fi
exec "$bin/postgres" -D "$PGDATA" -c listen_addresses='*' \
    -c unix_socket_directories="${PGHOST:-/var/run/postgresql}" "$@"
