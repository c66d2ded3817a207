#!/bin/sh
# Installs Chromium (Debian package "chromium") that the browser tests drive
# (e2e/webui_test.go, e2e/portal_test.go), when no Chromium or Chrome is
# installed.
set -eu
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" >/dev/null 2>&1; then
		exit 0
	fi
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends chromium
