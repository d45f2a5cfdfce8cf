#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh Debian machine:
# the package with its test extras (pytest, the real `anki` backend, Playwright's Python
# package, ruff, mypy) and Debian's chromium for the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
if [ ! -x /usr/bin/chromium ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
