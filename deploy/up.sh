#!/bin/sh
# Bring the course server up: `deploy/up.sh` (as root, or a member of the docker group, on a machine with
# Debian's docker.io and docker-compose). The first run makes what the deployment needs and keeps it:
#   wheels/           the grader's wheel and its dependencies' (pip wheel; the images install from these)
#   secrets/          the database's password
#   certs/            a self-signed certificate for $GRADER_SITE, unless you put yours there (site.crt, site.key)
#   .env              the addresses, the course folder, the backups folder (edit it, then run this again)
# then builds the images (`docker-compose build`) and starts everything, and waits until the proxy answers
# /readyz over TLS. Run it again after an upgrade: see docs/deploy.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
python=${PYTHON:-python3}
[ -f .env ] || cp env.example .env
set -a; . ./.env; set +a
source=${GRADER_SOURCE:-$here/..}  # the grader's checkout the wheel is built from
mkdir -p wheels secrets certs "${GRADER_BACKUPS:-./backups}"
chmod 700 secrets
# The servers write snapshots there as the images' unprivileged user (uid 10001).
[ "$(id -u)" = 0 ] && chown 10001:10001 "${GRADER_BACKUPS:-./backups}"
if [ ! -s secrets/db_password ]; then
    "$python" -c 'import secrets; print(secrets.token_urlsafe(24))' > secrets/db_password
    chmod 644 secrets/db_password  # read inside the containers by the database's and the servers' users
fi
if [ ! -s certs/site.crt ]; then
    # ECDSA P-256: a TLS handshake costs the proxy a fraction of an RSA key's (a deadline opens hundreds a second)
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 825 -subj "/CN=${GRADER_SITE:-localhost}" \
        -addext "subjectAltName=DNS:${GRADER_SITE:-localhost},IP:${GRADER_PROXY_ADDRESS:-127.0.0.10}" \
        -keyout certs/site.key -out certs/site.crt 2>/dev/null
    chmod 644 certs/site.key certs/site.crt  # the proxy's user reads them; keep the folder itself private
    echo "made a self-signed certificate in deploy/certs/ (put your own site.crt and site.key there)"
fi
rm -f wheels/*.whl
"$python" -m pip wheel -q --wheel-dir wheels "$source[server,postgres,dask]"
docker-compose up -d --build "$@"
echo "waiting for https://${GRADER_SITE:-localhost}:${GRADER_PROXY_PORT:-8443}/readyz ..."
"$python" - <<PY
import ssl, sys, time, urllib.request
context = ssl.create_default_context(cafile="certs/site.crt")
context.check_hostname = False  # the address is named by IP; the certificate is checked against this file
url = "https://${GRADER_PROXY_ADDRESS:-127.0.0.10}:${GRADER_PROXY_PORT:-8443}/readyz"
deadline = time.monotonic() + 600
while True:
    try:
        with urllib.request.urlopen(url, context=context, timeout=5) as answer:
            body = answer.read().decode()
        if '"ready"' in body:  # the servers' answer, not the proxy's own
            print(body); break
        error = f"the proxy answered {body!r}"
    except Exception as failure:
        error = failure
    if time.monotonic() > deadline:
        sys.exit(f"not ready after 10 minutes: {error}; see docker-compose logs")
    time.sleep(2)
PY
