// Small behaviours htmx does not cover. Loaded with `defer`; no inline script anywhere.
"use strict";
