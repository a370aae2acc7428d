#!/bin/sh
# PostgreSQL 15 for the course server: a cluster made on first start in the data volume, password
# authentication (scram) for the grader's user from anywhere it listens, then the server in the foreground.
set -eu
bin=/usr/lib/postgresql/15/bin
data=/var/lib/postgresql/data
if [ ! -s "$data/PG_VERSION" ]; then
    printf '%s\n' "$(cat "$GRADER_DB_PASSWORD_FILE")" > /tmp/pw
    "$bin/initdb" -D "$data" -U postgres --auth-local=peer --auth-host=scram-sha-256 -E UTF8 >/dev/null
    "$bin/pg_ctl" -D "$data" -o "-c listen_addresses=''" -w start >/dev/null
    psql -v ON_ERROR_STOP=1 -q -d postgres -c "CREATE ROLE grader LOGIN CREATEDB PASSWORD '$(cat /tmp/pw)'" \
        -c "CREATE DATABASE grader OWNER grader"
    rm -f /tmp/pw
    "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
    echo "host all all 0.0.0.0/0 scram-sha-256" >> "$data/pg_hba.conf"
fi
exec "$bin/postgres" -D "$data" -c "listen_addresses=${GRADER_DB_ADDRESS}" -c "port=${GRADER_DB_PORT}" \
    -c unix_socket_directories=/tmp
