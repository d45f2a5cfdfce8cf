#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh Debian machine: into the project's
# virtual environment (.venv, made by scripts/make-venv.sh) the package with its test
# extras (pytest, the real `anki` backend, Playwright's Python package, ruff, mypy);
# Debian's chromium (and a Korean font, so screenshots of Korean cards are readable) for
# the browser tests; and Anki desktop's reviewer page code from the `aqt` wheel of the
# installed anki version (cached, see tests/browser.py).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/make-venv.sh
python=.venv/bin/python
"$python" -m pip install --quiet --disable-pip-version-check -e '.[test]'
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
if ! command -v fc-list >/dev/null || [ -z "$(fc-list :lang=ko 2>/dev/null)" ]; then
  missing+=(fonts-nanum)
fi
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
"$python" -c "from tests.browser import desktop_web_dir; desktop_web_dir()"
