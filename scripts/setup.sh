#!/usr/bin/env bash
# Installs what `npm start`, `npm test` and `npm run bench` need and is missing: Debian packages (when root), then the
# npm packages, Bun among them (into node_modules/.bin). Safe to run every time: it only acts on gaps.
set -euo pipefail
cd "$(dirname "$0")/.."
# Under `npm start`, stdout is the service's log (one JSON object a line): setup, apt and npm talk on stderr.
exec 1>&2

# fonts-wqy-microhei and fonts-dejavu-core: the fonts the PDF export embeds (CJK and Hangul; Arabic, Hebrew).
packages=(ffmpeg pocketsphinx pocketsphinx-en-us nats-server fonts-wqy-microhei fonts-dejavu-core)
# yt-dlp: downloads the media of `videolink` tasks.
packages+=(yt-dlp)
# libsqlite3-0: `bun run admin backup` calls SQLite's online backup API there (bun:sqlite does not expose it).
packages+=(libsqlite3-0)
# espeak-ng: PocketSphinx pronounces a task's vocabulary words missing from its dictionary with it.
packages+=(espeak-ng)
if [ "${1:-}" = "--test" ]; then
  # The S3 contract suite runs against a real S3 implementation: Ceph's RADOS Gateway.
  packages+=(radosgw ceph-mon ceph-osd ceph-common ceph-base)
  # The export tests read PDFs with pdftotext and convert a docx with LibreOffice.
  packages+=(poppler-utils libreoffice-writer-nogui)
  # The transcription tests make speech (two voices, for diarization) with espeak-ng.
  packages+=(espeak-ng)
  # The vocabulary test makes speech PocketSphinx can follow (made-up names in sentences) with flite.
  packages+=(flite)
  # Word error rates are scored by NIST's sclite too (Debian's sctk), and a test checks it agrees with ours.
  packages+=(sctk)
  # The metrics tests check /metrics with promtool, which Debian ships in the prometheus package.
  packages+=(prometheus)
  # The docs' log recipe is run as written, with jq.
  packages+=(jq)
  # The data export's tests open its zip with Info-ZIP's unzip, as a person would.
  packages+=(unzip)
  # The web app's browser tests drive Debian's Chromium (through playwright-core: no browser is downloaded).
  packages+=(chromium)
  # compose.yaml is resolved with Compose v1's `docker-compose config`, and its load balancer's Caddyfile is run by Caddy.
  packages+=(docker-compose caddy)
fi
if [ "${1:-}" = "--bench" ]; then
  # `npm run bench`: wrk loads the HTTP benchmarks; espeak-ng speaks for the transcription ones without LibriSpeech;
  # the web app's first load is measured in Chromium.
  packages+=(wrk espeak-ng chromium sctk)
  # bench/vocabulary.bench.ts speaks its sentences with flite.
  packages+=(flite)
fi

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: warning: missing Debian packages ${missing[*]} (run as root, or install them, to use the features that need them)"
  fi
fi

if [ ! -x node_modules/.bin/bun ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages (Bun included)"
  # `npm install`, not `npm ci`: npm's lock check trips over the whisper binding's per-platform optional
  # packages and refuses `ci`; install still takes the versions the lock file pins.
  npm install --no-audit --no-fund --loglevel=error
fi

# The docs' commands say `bun run admin …`, `bun run events …`: when no Bun is on a person's PATH, link this
# project's into /usr/local/bin (as root only; otherwise `npx bun …` runs the same Bun). A person's PATH, not this
# script's: under `npm start` and `npm test` npm puts node_modules/.bin first, where Bun always is.
plain_path=$(printf '%s' "$PATH" | tr ':' '\n' | { grep -v 'node_modules/\.bin/\?$' || true; } | paste -sd: -)
if ! PATH="$plain_path" command -v bun >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && [ -d /usr/local/bin ] && [ -w /usr/local/bin ]; then
    ln -sf "$(readlink -f node_modules/.bin/bun)" /usr/local/bin/bun
    echo "setup: linked Bun into /usr/local/bin/bun (the one in node_modules/.bin)"
  else
    echo "setup: note: no bun on the PATH; use \`npx bun …\` for the docs' \`bun run …\` commands"
  fi
fi
