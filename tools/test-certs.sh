#!/usr/bin/env bash
# Writes a throw-away CA, a server certificate for 127.0.0.1/localhost/::1 and a client certificate
# into DIR (ca.crt, server.crt, server.key, client.crt, client.key, client.p12 with password
# "fabricd"): what the TLS tests use, and a quick way to try fabricd's web config by hand
# (docs/security.md). Never for production: the keys sit unencrypted in DIR.
set -euo pipefail
dir=${1:?usage: tools/test-certs.sh DIR}
mkdir -p "$dir"
cd "$dir"
q() { openssl "$@" >/dev/null 2>&1; }
q req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj "/CN=fabricd test CA" \
  -keyout ca.key -out ca.crt
for who in server client; do
  q req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=fabricd test $who" -keyout "$who.key" -out "$who.csr"
  if [ "$who" = server ]; then
    printf 'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\nextendedKeyUsage=serverAuth\n' > "$who.ext"
  else
    printf 'extendedKeyUsage=clientAuth\n' > "$who.ext"
  fi
  q x509 -req -in "$who.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile "$who.ext" -out "$who.crt"
  rm -f "$who.csr" "$who.ext"
done
q pkcs12 -export -in client.crt -inkey client.key -passout pass:fabricd -out client.p12
chmod 600 ./*.key client.p12
echo "test certificates in $dir"
