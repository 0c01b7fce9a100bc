// Copy buttons of the portal text page. The clipboard API needs a secure context;
// elsewhere a temporary selected textarea and execCommand("copy") do the job. The
// result is announced in the page's aria-live region. No inline script (strict CSP).
"use strict";

// The page's texts for the scripts, in its language (base.html, json_script): each
// script file declares this same function (classic scripts may both declare it).
function pageMessage(key, fallback, values) {
  const node = document.getElementById("script-messages");
  let messages = {};
  try { messages = node ? JSON.parse(node.textContent) : {}; } catch (error) { messages = {}; }
  let text = messages[key];
  if (text && typeof text === "object") {
    const count = values ? values.count : 1;
    text = text[new Intl.PluralRules(document.documentElement.lang || "en").select(count)] || text.other;
  }
  text = text || fallback;
  return text.replace(/%\((\w+)\)s/g, function (all, name) {
    return values && name in values ? String(values[name]) : all;
  });
}

(function () {
  function announce(text) {
    const status = document.getElementById("copy-status");
    if (!status) return;
    status.textContent = "";
    // A fresh text node, so that screen readers announce a repeated "Copied" too.
    window.setTimeout(function () { status.textContent = text; }, 50);
  }

  function fallbackCopy(text) {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "copy-fallback";
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch (error) {
      ok = false;
    }
    area.remove();
    return ok;
  }

  function showResult(button, ok, label) {
    const original = button.dataset.label || button.innerHTML;
    button.dataset.label = original;
    button.textContent = ok ? pageMessage("copied", "Copied") : pageMessage("pressCopy", "Press Ctrl+C");
    announce(
      ok
        ? pageMessage("copiedLabel", "Copied: %(label)s", { label: label })
        : pageMessage("copyFailed", "Copy failed; the text is selected, press Ctrl+C."),
    );
    window.setTimeout(function () { button.innerHTML = button.dataset.label; }, 2000);
  }

  function selectText(element) {
    const range = document.createRange();
    range.selectNodeContents(element);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  document.addEventListener("click", function (event) {
    const button = event.target.closest("[data-copy-target]");
    if (!button) return;
    const source = document.getElementById(button.dataset.copyTarget);
    if (!source) return;
    const text = source.textContent;
    const labelElement = document.getElementById(button.dataset.copyTarget + "-label");
    const label = labelElement ? labelElement.textContent : "";
    const done = function (ok) {
      if (!ok) selectText(source);
      showResult(button, ok, label);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () { done(true); },
        function () { done(fallbackCopy(text)); }
      );
    } else {
      done(fallbackCopy(text));
    }
  });
})();

// The PDF's progress page: when the polled status turns "ready" after waiting, open
// the file (shown in the browser, or downloaded) as the person asked; the buttons
// stay on the page for another look.
(function () {
  function openWhenReady() {
    const status = document.querySelector("#pdf-status[data-open]");
    if (!status) return;
    const url = status.dataset.open;
    status.removeAttribute("data-open");
    window.location.assign(url);
  }
  document.addEventListener("htmx:afterSettle", openWhenReady);
})();
