#!/bin/sh
# Makes sure the PostgreSQL server binaries that store/pgtest starts
# throwaway servers from are installed (Debian/Ubuntu: package
# "postgresql"), then runs the store tests against both databases.
# Usage: .ci/pg.sh [go test flags...]
set -eu
cd "$(dirname "$0")/.."
if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends postgresql
fi
unset HOOKD_SKIP_POSTGRES
exec go test "$@" ./store/...
