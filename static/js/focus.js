// Where focus goes in the wizard. After moving to another step (Next, Previous, a
// step tab) the server marks the step heading with data-focus-on-load: focus goes
// there, not to <body> (17 Tabs from the first field). A link to a field (the live
// sidebar's findings, "#id_total_gpu_hours") scrolls so that the field's label stays
// in view below anything sticky, then focuses the input without scrolling again.
(function () {
  "use strict";

  const CONTROL = "input:not([type=hidden]), select, textarea, button";

  function stickyTop() {
    // The height covered at the top of the viewport by fixed or sticky elements.
    let covered = 0;
    for (const el of document.querySelectorAll("body *")) {
      const style = getComputedStyle(el);
      if (style.position !== "fixed" && style.position !== "sticky") continue;
      const box = el.getBoundingClientRect();
      if (box.height === 0 || box.height > window.innerHeight / 2) continue;
      if (style.top !== "auto" && parseFloat(style.top) <= 8) {
        covered = Math.max(covered, parseFloat(style.top) + box.height);
      }
    }
    return covered;
  }

  function labelOf(el) {
    // The visible words that name ``el``: its <label>, the legend of its fieldset,
    // or (in a table, where labels are read out but not shown) its column header.
    const label = el.id && document.querySelector(`label[for="${CSS.escape(el.id)}"]`);
    if (label && label.getClientRects().length && label.offsetWidth > 1) return label;
    const legend = el.closest("fieldset")?.querySelector("legend");
    if (legend) return legend;
    const cell = el.closest("td, th");
    const table = cell?.closest("table");
    if (cell && table) {
      const header = table.tHead?.rows[0]?.cells[cell.cellIndex];
      if (header) return header;
    }
    return null;
  }

  function reveal(target) {
    // Open what folds it away (a <details>), scroll label and field into view with
    // the label at the top, and focus the field (or the first control inside).
    for (let d = target.closest("details"); d; d = d.parentElement.closest("details")) {
      d.open = true;
    }
    const field = target.matches(CONTROL) ? target : target.querySelector(CONTROL);
    const label = field ? labelOf(field) : null;
    const tops = [target, field, label]
      .filter(Boolean)
      .map((el) => el.getBoundingClientRect().top);
    const top = Math.min(...tops) + window.scrollY - stickyTop() - 12;
    window.scrollTo({ top: Math.max(top, 0), behavior: "instant" });
    const focusable = field || target;
    if (!field && !target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
    focusable.focus({ preventScroll: true });
  }

  function targetOf(hash) {
    if (!hash || hash.length < 2) return null;
    try {
      return document.getElementById(decodeURIComponent(hash.slice(1)));
    } catch (e) {
      return null;
    }
  }

  function onLoad() {
    const target = targetOf(window.location.hash);
    if (target && target.closest("#wizard-form")) {
      reveal(target);
      return;
    }
    if (document.querySelector("[data-focus-row]")) return; // app.js: a new row
    const heading = document.querySelector("[data-focus-on-load]");
    if (heading && (document.activeElement === document.body || !document.activeElement)) {
      heading.focus();
    }
  }

  document.addEventListener("click", (event) => {
    // A link to a field of this very page: reveal it here, label included.
    const link = event.target.closest("a[href*='#']");
    if (!link || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const url = new URL(link.href, window.location.href);
    if (url.origin !== window.location.origin || url.pathname !== window.location.pathname) {
      return;
    }
    const target = targetOf(url.hash);
    if (!target || !target.closest("#wizard-form")) return;
    event.preventDefault();
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
    reveal(target);
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", onLoad);
  } else {
    onLoad();
  }
  // The browser scrolls to a #fragment itself once the page is laid out; put the
  // label back in view after that.
  window.addEventListener("load", () => {
    const target = targetOf(window.location.hash);
    if (target && target.closest("#wizard-form")) requestAnimationFrame(() => reveal(target));
  });
})();
