#!/usr/bin/env bash
# Copy the front-end packages installed by `npm ci` into static/vendor, so that the app
# serves them itself (no CDN; it works offline).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=static/vendor
rm -rf "$dest"
mkdir -p "$dest/bootstrap" "$dest/bootstrap-icons/fonts"
cp node_modules/bootstrap/dist/css/bootstrap.min.css{,.map} "$dest/bootstrap/"
cp node_modules/bootstrap/dist/js/bootstrap.bundle.min.js{,.map} "$dest/bootstrap/"
cp node_modules/bootstrap-icons/font/bootstrap-icons.min.css "$dest/bootstrap-icons/"
cp node_modules/bootstrap-icons/font/fonts/bootstrap-icons.woff2 \
   node_modules/bootstrap-icons/font/fonts/bootstrap-icons.woff "$dest/bootstrap-icons/fonts/"
cp node_modules/bootstrap/LICENSE "$dest/bootstrap/LICENSE"
cp node_modules/bootstrap-icons/LICENSE "$dest/bootstrap-icons/LICENSE"
