#!/usr/bin/env bash
# The Debian packages that `make test` needs beyond Python and npm: Chromium and its
# headless shell for the browser tests (driven through Playwright, never downloaded),
# Pango and a font for the PDF export. Installs what is missing with apt-get when it can (as root, or
# through password-less sudo), and otherwise says what to install and exits 1.
# Usage: scripts/system_packages.sh [more Debian packages to require]
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || need+=(chromium)
# The same Chromium build without the full browser's window layer: the browser tests
# prefer it (about 40 % less CPU a test; tests/e2e/conftest.py).
command -v chromium-headless-shell >/dev/null || need+=(chromium-headless-shell)
have_pkg libpangoft2-1.0-0 || need+=(libpangoft2-1.0-0)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
# msgfmt: compilemessages turns the German and French catalogues into .mo files.
command -v msgfmt >/dev/null || need+=(gettext)
# systemd-analyze: tests/commands/test_systemd_units.py rates the shipped units' sandbox.
command -v systemd-analyze >/dev/null || need+=(systemd)
# pdftotext and pdftoppm (poppler): the PDF tests read the exported pages' text.
command -v pdftotext >/dev/null || need+=(poppler-utils)
# shellcheck: tests/domain/test_scaling_kit.py checks every generated Slurm script.
command -v shellcheck >/dev/null || need+=(shellcheck)
for pkg in "$@"; do have_pkg "$pkg" || need+=("$pkg"); done
[ ${#need[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null; then
  as_root=()
  why="this is not a Debian or Ubuntu system (no apt-get)"
elif [ "$(id -u)" -eq 0 ]; then
  as_root=(env)
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  as_root=(sudo)
else
  as_root=()
  why="installing needs root, and sudo is not available without a password"
fi

if [ ${#as_root[@]} -gt 0 ]; then
  echo "Installing the system packages the tests need: ${need[*]}"
  if "${as_root[@]}" apt-get update -qq \
    && "${as_root[@]}" DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq "${need[@]}" >/dev/null; then
    exit 0
  fi
  why="apt-get could not install them (see above)"
fi

cat >&2 <<MSG

make test needs these Debian packages, which are missing: ${need[*]}
They were not installed because ${why}. Install them, then run make test again:

    sudo apt-get install ${need[*]}

(Chromium and its headless shell drive the browser tests; Pango and the DejaVu font render the PDF export,
poppler reads it back;
gettext compiles the translations; systemd's systemd-analyze rates the units' sandbox.
Everything but the browser tests: make test-fast.)
MSG
exit 1
