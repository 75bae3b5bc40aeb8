#!/usr/bin/env bash
# Installs what the build and the tests need on a fresh machine (idempotent, quick when done).
# Python packages from requirements.txt; the site's self-hosted JavaScript (MathJax, Observable
# Plot/Inputs, d3) from package-lock.json; Debian's Chromium for the browser test when Quarto is
# present (that test is skipped without Quarto).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python3}

$PY -m pip install --quiet --disable-pip-version-check -r requirements.txt

if [ -f package-lock.json ]; then
  npm ci --silent --no-audit --no-fund
fi

if command -v quarto >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  else
    echo "note: /usr/bin/chromium is missing; the browser test will be skipped (apt-get install chromium)" >&2
  fi
fi
