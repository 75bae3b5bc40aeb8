#!/usr/bin/env bash
# Installs what the build and the tests need on a fresh machine (idempotent, quick when done).
# Python packages from requirements.txt; the site's self-hosted JavaScript (MathJax, Observable
# Plot/Inputs, d3) from package-lock.json, copied into vendor/; Debian's Chromium for the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python3}

# (as root, pip warns about running as root on every install: a set-up warning nobody acts on)
PIP_ROOT_USER_ACTION=ignore $PY -m pip install --quiet --disable-pip-version-check -r requirements.txt

if [ -f package-lock.json ]; then
  npm ci --silent --no-audit --no-fund
fi

# Debian's Chromium drives the browser tests (the offline demo test always; the rendered-site test
# when Quarto is present). Never a browser downloaded by a test tool.
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
      || echo "note: could not install chromium; the browser tests will be skipped" >&2
  else
    echo "note: /usr/bin/chromium is missing; the browser tests will be skipped (apt-get install chromium)" >&2
  fi
fi

# pdftotext (poppler-utils) reads the handout PDFs in their test (tests/js/handouts.test.mjs)
if ! command -v pdftotext >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null) \
      || echo "note: could not install poppler-utils; the handout test will be skipped" >&2
  else
    echo "note: pdftotext is missing; the handout test will be skipped (apt-get install poppler-utils)" >&2
  fi
fi

# Quarto: the version the Site workflow publishes with is named once, in .quarto-version
want=$(tr -d '[:space:]' < .quarto-version)
if command -v quarto >/dev/null 2>&1; then
  have=$(quarto --version 2>/dev/null | tr -d '[:space:]')
  if [ "$have" != "$want" ]; then
    echo "note: quarto $have is installed, but the site is published with Quarto $want (.quarto-version):" >&2
    echo "      the rendered-site tests will fail until you install $want (https://github.com/quarto-dev/quarto-cli/releases/tag/v$want)" >&2
  fi
else
  echo "note: quarto is not on PATH; install Quarto $want (.quarto-version) to render the site and run its tests" >&2
fi

# the site's self-hosted JavaScript (vendor/), which the offline browser test serves
$PY -m scripts.pages.vendor_js >/dev/null
