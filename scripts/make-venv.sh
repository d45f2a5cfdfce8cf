#!/usr/bin/env bash
# Creates the project's virtual environment (.venv) if it is missing. Debian and Ubuntu
# ship venv separately (python3-venv): install it when `python3 -m venv` cannot work.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] && exit 0
if ! python3 -m venv .venv 2>/dev/null; then
  rm -rf .venv
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  version="$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "python${version}-venv" >/dev/null
  python3 -m venv .venv
fi
