#!/bin/sh
# Installs the PostgreSQL server binaries (Debian package "postgresql") that
# store/pgtest starts throwaway test servers from, when they are missing.
set -eu
if command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
	exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends postgresql
