#!/bin/sh
# The grader containers' entry: the database's password from its secret file into $PGPASSWORD, where
# PostgreSQL's client library (and pg_dump) read it, so it is never on a command line nor in the compose
# file. `docker-compose exec server1 grader-entry grader serve token alice` runs a command the same way.
if [ -r /run/secrets/db_password ]; then
    PGPASSWORD=$(cat /run/secrets/db_password)
    export PGPASSWORD
fi
exec "$@"
