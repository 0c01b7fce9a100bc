// Small behaviours htmx does not cover: the autosave indicator and its retries, the
// unsaved-changes guard, GPU/GCD unit conversion, focus after adding a row. Loaded
// with `defer`; there is no inline script anywhere (strict CSP).
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
  const RETRY_DELAYS_MS = [1000, 2000, 5000, 10000, 20000];

  function setStatus(form, state, text) {
    const status = document.getElementById("save-status");
    if (!status) return;
    status.dataset.state = state;
    const css = {
      saving: "text-body-secondary",
      dirty: "text-body-secondary",
      retrying: "text-warning-emphasis fw-semibold",
      saved: "text-success",
    }[state] || "text-body-secondary";
    status.replaceChildren();
    const span = document.createElement("span");
    span.className = css;
    span.textContent = text;
    status.appendChild(span);
  }

  function autosaveForm() {
    return document.querySelector("form[data-autosave]");
  }

  // State of the page's autosave form; the form element itself may be swapped (row
  // operations replace it), so the state lives here and is keyed by nothing.
  const state = { dirty: false, inFlight: false, retries: 0, pendingSubmit: null };

  // Typing shows at once, without a request: the autosave follows the debounce
  // (hx-trigger on the form) and then says "Saving…" and "Saved".
  document.addEventListener("input", function (event) {
    const form = autosaveForm();
    if (!form || !form.contains(event.target)) return;
    state.dirty = true;
    setStatus(form, "dirty", pageMessage("typing", "Typing…"));
    nudgeLater();
  }, true);

  // The debounced autosave starts 200 ms after the last keystroke. Typing into a
  // form that htmx has just swapped in (a row added) can come before htmx has
  // bound its trigger; then nothing would send it and "Typing…" would stay. A
  // second after the last keystroke, a change still unsent and no request under
  // way sends the autosave.
  let nudge = null;
  function nudgeLater() {
    window.clearTimeout(nudge);
    nudge = window.setTimeout(function () {
      const current = autosaveForm();
      if (current && state.dirty && !state.inFlight && !state.submitting) {
        htmx.trigger(current, "autosave-retry");
      }
    }, 1000);
  }

  // Switching between physical GPUs and GCDs converts the numbers already typed, so
  // the stored values never change meaning. GPU counts are whole numbers: whatever
  // separates digit groups (1,000 / 1.000 / 1 000) is left out.
  document.addEventListener("change", function (event) {
    const radio = event.target;
    if (!(radio instanceof HTMLInputElement) || radio.name !== "gpu_unit") return;
    const factor = parseInt(radio.dataset.gcdsPerGpu || "1", 10);
    const toGcds = radio.value === "gcds";
    document.querySelectorAll("input[data-gpu-count]").forEach(function (input) {
      if (!/^[0-9][0-9.,\s\u00a0\u202f\u2009]*$/.test(input.value.trim())) return;
      const value = parseInt(input.value.replace(/[^0-9]/g, ""), 10);
      if (!toGcds && value % factor) return;
      input.value = String(toGcds ? value * factor : value / factor);
    });
    document.querySelectorAll("[data-gpu-unit-label]").forEach(function (el) {
      // The word in the page's language, from the radio chosen.
      el.textContent = radio.dataset.unitLabel || (toGcds ? "GCDs" : "GPUs");
    });
  }, true);

  document.body.addEventListener("htmx:beforeRequest", function (event) {
    const form = autosaveForm();
    if (!form || event.detail.elt !== form) return;
    state.inFlight = true;
    state.dirtyAtSend = state.dirty;
    state.dirty = false;
    setStatus(form, "saving", pageMessage("saving", "Saving…"));
  });

  function retryLater(form) {
    state.dirty = true;
    const delay = RETRY_DELAYS_MS[Math.min(state.retries, RETRY_DELAYS_MS.length - 1)];
    state.retries += 1;
    setStatus(form, "retrying", pageMessage("retrying", "Not saved, retrying…"));
    window.setTimeout(function () {
      const current = autosaveForm();
      if (current) htmx.trigger(current, "autosave-retry");
    }, delay);
  }

  document.body.addEventListener("htmx:afterRequest", function (event) {
    const form = autosaveForm();
    if (!form) return;
    const elt = event.detail.elt;
    if (elt !== form && !form.contains(elt)) return;
    state.inFlight = false;
    const xhr = event.detail.xhr;
    if (event.detail.failed || !xhr || xhr.status === 0 || xhr.status >= 500) {
      retryLater(form);
      return;
    }
    state.retries = 0;
    if (state.dirty) setStatus(form, "dirty", pageMessage("typing", "Typing…"));
    if (state.pendingSubmit && !state.dirty) {
      const submitter = state.pendingSubmit;
      state.pendingSubmit = null;
      state.submitting = true;
      form.requestSubmit(document.getElementById(submitter.id) || submitter);
    }
  });

  // A plain submit (Next, Previous, Save) waits until the in-flight autosave has
  // answered, so it is based on the newest revision.
  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (!form.matches("form[data-autosave]")) return;
    if (state.inFlight) {
      event.preventDefault();
      state.pendingSubmit = event.submitter;
      return;
    }
    state.dirty = false;
    state.submitting = true;
  }, true);

  // Leaving (reload, another page, closing the tab) within the typing delay: what
  // was typed is sent at once, as the autosave it would have been, and the browser
  // still asks first while it is on its way. If the person stays, its answer
  // arrives as any autosave's does.
  window.addEventListener("beforeunload", function (event) {
    if (state.submitting) return;
    const form = autosaveForm();
    if (form && state.dirty && !state.inFlight) htmx.trigger(form, "autosave-retry");
    if (state.dirty || state.inFlight) {
      event.preventDefault();
      event.returnValue = "";
    }
  });

  // The page goes (the person confirmed leaving, or a phone dropped the page): a
  // change not yet stored is sent again as a keepalive request, which outlives the
  // page, in case the request under way is cut off with it. It carries the page's
  // bases like any autosave, so a field saved by the request it repeats is not a
  // conflict, and one saved by someone else since is refused as always.
  function sendBeforeGoing() {
    const form = autosaveForm();
    if (!form || !(state.dirty || state.inFlight) || state.submitting) return;
    const body = new URLSearchParams(new FormData(form));
    body.set("autosave", "1");
    state.dirty = false;
    fetch(form.getAttribute("hx-post"), {
      method: "POST",
      body: body,
      keepalive: true,
      credentials: "same-origin",
      headers: { "HX-Request": "true" },
    }).catch(function () { state.dirty = true; });
  }
  window.addEventListener("pagehide", sendBeforeGoing);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "hidden") return;
    const form = autosaveForm();
    // Still open (another app, another tab): the ordinary autosave, whose answer
    // the page applies when it is shown again.
    if (form && state.dirty && !state.inFlight && !state.submitting) {
      htmx.trigger(form, "autosave-retry");
    }
  });

  // Controls that only work through htmx (a finding's action, posted with the
  // page's CSRF header) come hidden, and are shown once the script runs: on the
  // page and in every region an answer swaps in.
  htmx.onLoad(function (element) {
    if (element.matches && element.matches("[data-needs-script]")) element.hidden = false;
    element.querySelectorAll("[data-needs-script]").forEach(function (control) {
      control.hidden = false;
    });
  });

  // After a row was added, put the cursor in its first input (looked for once an
  // answer has settled, not at each element it settled).
  let focusing = false;
  document.body.addEventListener("htmx:afterSettle", function () {
    if (focusing) return;
    focusing = true;
    queueMicrotask(focusNewRow);
  });
  function focusNewRow() {
    focusing = false;
    const target = document.querySelector("[data-focus-row]");
    if (!target) return;
    const row = document.getElementById(target.dataset.focusRow);
    target.removeAttribute("data-focus-row");
    if (!row) return;
    const input = row.querySelector("input:not([type=hidden]), select, textarea");
    if (input) input.focus();
  }
})();

// Findings shown under each field mirror the sidebar's list. Autosave answers replace
// the sidebar (not every field's block), so the inline copies are rebuilt from it.
(function () {
  let scheduled = false;

  function inlineFinding(item) {
    const div = document.createElement("div");
    div.className = "finding-inline small text-" + (item.dataset.css || "secondary") + "-emphasis";
    const badge = item.querySelector(".badge");
    if (badge) {
      const copy = badge.cloneNode(true);
      copy.classList.add("me-1");
      div.appendChild(copy);
    }
    const link = item.querySelector("a");
    div.appendChild(document.createTextNode(link ? link.textContent.trim() : ""));
    return div;
  }

  function syncInlineFindings() {
    scheduled = false;
    const byAnchor = new Map();
    document.querySelectorAll("#live-findings li[data-anchor]").forEach(function (item) {
      const list = byAnchor.get(item.dataset.anchor) || [];
      list.push(item);
      byAnchor.set(item.dataset.anchor, list);
    });
    document.querySelectorAll(".field-findings[data-anchor]").forEach(function (box) {
      const items = byAnchor.get(box.dataset.anchor) || [];
      box.replaceChildren.apply(box, items.map(inlineFinding));
    });
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    window.requestAnimationFrame(syncInlineFindings);
  }

  document.body.addEventListener("htmx:afterSwap", schedule);
  document.body.addEventListener("htmx:oobAfterSwap", schedule);
})();

// Autosave sends the step's own fields plus only the table rows typed in since the last
// successful save, so a proposal with hundreds of rows stays as quick as a small one.
// Row operations and plain submits still send everything.
(function () {
  // The table kinds come from the page (the server's vocabulary), never from here.
  let rowPattern = null;
  function rowPrefix(name) {
    if (!rowPattern) {
      const form = document.querySelector("form[data-row-kinds]");
      const kinds = form ? form.dataset.rowKinds.split(/\s+/).filter(Boolean) : [];
      if (!kinds.length) return null;
      rowPattern = new RegExp("^((?:" + kinds.join("|") + ")-\\d+)-");
    }
    const match = rowPattern.exec(name);
    return match ? match[1] : null;
  }
  const pending = new Map(); // row prefix -> version of its latest edit
  let version = 0;
  let sent = null;

  function remember(event) {
    const target = event.target;
    if (!target || !target.name || !target.form || !target.form.matches("[data-autosave]")) return;
    const prefix = rowPrefix(target.name);
    if (prefix) pending.set(prefix, ++version);
  }
  document.addEventListener("input", remember, true);
  document.addEventListener("change", remember, true);

  // The request's FormData is read and changed directly: htmx's "parameters" proxy
  // rebuilds an object of every input for each name it is asked about, which at the
  // row limits (2,700 inputs) held an autosave back three seconds before it left.
  document.body.addEventListener("htmx:configRequest", function (event) {
    const elt = event.detail.elt;
    const data = event.detail.formData;
    if (!elt.matches || !elt.matches("form[data-autosave]") || data.get("autosave") !== "1") return;
    // htmx sends a form's request to the focused (or last clicked) submit button's
    // formaction, with its name: an autosave that leaves while Tab has reached a
    // row's "Remove" would remove the row, unasked. The autosave goes to the step.
    event.detail.path = elt.getAttribute("hx-post");
    event.detail.verb = "post";
    const focused = document.activeElement;
    if (focused && focused.form === elt && focused.type === "submit" && focused.name) {
      data.delete(focused.name);
    }
    sent = new Map(pending);
    new Set(data.keys()).forEach(function (name) {
      const prefix = rowPrefix(name);
      if (prefix && !pending.has(prefix)) data.delete(name);
    });
    sendOnlyWhatASaveNeeds(data);
  });

  // The page keeps every input's base (#bases-field); an autosave sends the bases
  // of the inputs it sends. What the other rows show is told by the keys of their
  // regions, in the one list of region keys the page posts (#regions-field).
  function sendOnlyWhatASaveNeeds(data) {
    const basesField = document.getElementById("bases-field");
    if (!basesField) return;
    let all = {};
    try { all = JSON.parse(basesField.value || "{}"); } catch (error) { all = {}; }
    const posted = new Set();
    for (const name of data.keys()) {
      const prefix = rowPrefix(name);
      if (prefix) posted.add(prefix);
    }
    // The step's own inputs (an unticked box or radio is sent as nothing) and
    // the inputs of the rows sent.
    const needed = {};
    Object.keys(all).forEach(function (name) {
      const prefix = rowPrefix(name);
      if (!prefix || posted.has(prefix)) needed[name] = all[name];
    });
    data.set("bases", JSON.stringify(needed));
  }

  document.body.addEventListener("htmx:afterRequest", function (event) {
    if (!sent || !event.detail.elt.matches || !event.detail.elt.matches("form[data-autosave]")) return;
    const xhr = event.detail.xhr;
    if (xhr && xhr.status >= 200 && xhr.status < 300) {
      sent.forEach(function (v, prefix) {
        if (pending.get(prefix) === v) pending.delete(prefix);
      });
    }
    sent = null;
  });
})();

// Autosave answers replace each field's feedback block, never the input someone is
// typing in: highlight (or clear) the input from its block, so a refused value is
// marked where it was typed.
// htmx fires afterSettle on each element an answer settled, so this looks only
// within the one the event is for.
(function () {
  const BOXES = ".field-feedback[id^='fb-']";
  function highlight(box) {
    const input = document.getElementById(box.id.slice(3));
    if (!input || !input.classList.contains("form-control")) return;
    const refused = box.querySelector(".invalid-feedback") !== null;
    input.classList.toggle("is-invalid", refused);
    if (refused) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }
  function within(element) {
    if (!element.querySelectorAll) return;
    if (element.matches(BOXES)) highlight(element);
    element.querySelectorAll(BOXES).forEach(highlight);
  }
  document.body.addEventListener("htmx:afterSettle", function (event) { within(event.target); });

  // An answer may hold hundreds of out-of-band blocks: the first edit of a step
  // with 200 jobs sends every job's findings again (831 blocks), as their colour
  // changes. htmx 2 looks up each block's extensions and, after each, fires
  // "oobAfterSwap" on every element swapped so far: that answer cost 11 s of
  // script before anyone could type. The plain blocks (the findings and the
  // feedback under a field: text, no controls) are put in place here, in one
  // pass, before htmx swaps what is left of the answer (the status, the regions
  // with controls) as always.
  const PLAIN = ".field-findings, .field-feedback";
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    const detail = event.detail;
    const text = detail.serverResponse;
    if (!detail.shouldSwap || typeof text !== "string" || text.indexOf("hx-swap-oob") < 0) return;
    if (/<(html|head|body|title)[\s>]/i.test(text)) return; // a whole page: htmx's own
    const answer = document.createElement("template");
    answer.innerHTML = text;
    let moved = 0;
    Array.from(answer.content.children).forEach(function (block) {
      if (!block.matches(PLAIN) || block.getAttribute("hx-swap-oob") !== "true") return;
      const target = document.getElementById(block.id);
      if (!target || !target.matches(PLAIN)) return;
      if (block.querySelector("[hx-get], [hx-post], [hx-trigger], [data-needs-script]")) return;
      block.removeAttribute("hx-swap-oob");
      target.replaceWith(block);
      within(block);
      moved += 1;
    });
    if (moved) detail.serverResponse = answer.innerHTML;
  });
})();

// What was typed while the page was still arriving (before htmx had set up the form,
// or before this script ran) has no autosave to follow: once the page is ready, each
// input that no longer shows what the server sent is announced again, so the autosave
// (and its rows) pick it up like any keystroke. A reload or a step back, where the
// browser itself may put earlier values back, is left alone.
(function () {
  function differs(el) {
    if (el.type === "hidden" || el.disabled || !el.name) return false;
    if (el.type === "checkbox" || el.type === "radio") return el.checked !== el.defaultChecked;
    if (el instanceof HTMLSelectElement) {
      const options = Array.from(el.options);
      if (el.multiple) {
        return options.some(function (option) { return option.selected !== option.defaultSelected; });
      }
      // Without a "selected" option the browser shows the first one.
      let shown = 0;
      options.forEach(function (option, index) { if (option.defaultSelected) shown = index; });
      return options.length > 0 && el.selectedIndex !== shown;
    }
    return el.value !== el.defaultValue;
  }

  document.addEventListener("DOMContentLoaded", function () {
    // After htmx's own set-up, which listens for the same event and was loaded first.
    window.setTimeout(function () {
      const form = document.querySelector("form[data-autosave]");
      if (!form) return;
      const navigation = performance.getEntriesByType("navigation")[0];
      if (navigation && navigation.type !== "navigate") return;
      form.querySelectorAll("input, select, textarea").forEach(function (el) {
        if (el.closest("[data-paste]") || !differs(el)) return;
        el.dispatchEvent(new Event("input", { bubbles: true }));
      });
    }, 0);
  });
})();

// Another tab saved a newer value of an input this page shows: the autosave answer
// lists it (#refresh-values: input name -> value as the input holds it, and its
// stored base). The input takes it only where the person has not typed since the
// request was sent; it then takes the new base too. An input being typed in keeps
// its text and its old base, so its own save shows the conflict with both values.
// Rows removed elsewhere are marked (typing into one offers to add it back).
(function () {
  // What the form held when each request left (kept on its XMLHttpRequest).
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    const elt = event.detail.elt;
    const form = elt.closest && elt.closest("form[data-autosave]");
    if (form && event.detail.xhr) event.detail.xhr.aifactorySent = new FormData(form);
  });

  function last(values) {
    return values.length ? String(values[values.length - 1]) : "";
  }

  function typedSince(now, sent, name) {
    if (!sent) return true;
    return last(now.getAll(name)) !== last(sent.getAll(name));
  }

  function put(form, name, value) {
    const found = form.elements.namedItem(name);
    if (!found) return false;
    const elements = found instanceof RadioNodeList ? Array.from(found) : [found];
    elements.forEach(function (el) {
      if (el.type === "radio") el.checked = el.value === value;
      else if (el.type === "checkbox") el.checked = value !== "";
      else el.value = value;
      el.classList.add("refreshed");
      el.title = pageMessage("changedElsewhere", "Changed in another tab");
    });
    return elements.length > 0;
  }

  // An autosave answers with the bases of the inputs it sent, as saved
  // (#bases-update): merged into what the page keeps. (The keys of the regions
  // the page shows, its rows' values included, come whole: #regions-field.)
  function mergeSaved() {
    const update = document.getElementById("bases-update");
    const basesField = document.getElementById("bases-field");
    if (!update || !basesField || !update.dataset.bases) return;
    let bases = {};
    let saved = {};
    try { bases = JSON.parse(basesField.value || "{}"); } catch (error) { bases = {}; }
    try { saved = JSON.parse(update.dataset.bases); } catch (error) { saved = {}; }
    Object.keys(saved).forEach(function (name) { bases[name] = saved[name]; });
    basesField.value = JSON.stringify(bases);
    update.dataset.bases = "";
  }

  function apply(sent) {
    const box = document.getElementById("refresh-values");
    const form = document.querySelector("form[data-autosave]");
    if (!box || !form || !box.dataset.values) return;
    let data;
    try { data = JSON.parse(box.dataset.values); } catch (error) { return; }
    box.dataset.values = "";
    const basesField = document.getElementById("bases-field");
    let bases = {};
    try { bases = JSON.parse(basesField.value || "{}"); } catch (error) { bases = {}; }
    let skipped = false;
    let taken = 0;
    const now = new FormData(form);
    Object.keys(data.inputs || {}).forEach(function (name) {
      const entry = data.inputs[name];
      if (typedSince(now, sent, name)) {
        skipped = true;
        return;
      }
      // A row sent again whole: what it already shows is left alone.
      if (last(now.getAll(name)) === entry.value) { bases[name] = entry.base; return; }
      if (put(form, name, entry.value)) { bases[name] = entry.base; taken += 1; }
    });
    basesField.value = JSON.stringify(bases);
    // Said where the save status is read out (aria-live), not only shown.
    const status = document.getElementById("save-status");
    if (taken && status) {
      const note = document.createElement("span");
      note.className = "text-body-secondary ms-1";
      note.dataset.testid = "refreshed-note";
      note.textContent = pageMessage(
        "shownElsewhere",
        "· %(count)s " + (taken === 1 ? "value" : "values") + " saved in another tab shown",
        { count: taken },
      );
      status.appendChild(note);
    }
    // An input left as typed still shows an older value than stored: the next
    // autosave must look again (the revision is what lets it skip looking).
    const revision = document.getElementById("revision-field");
    if (skipped && revision) revision.value = "";
    (data.removed || []).forEach(function (prefix) {
      const row = document.getElementById(prefix);
      if (!row || row.dataset.removed) return;
      row.dataset.removed = "1";
      row.classList.add("row-removed");
      row.title = pageMessage("removedElsewhere", "Removed in another tab");
    });
  }

  // Merged as soon as the answer is swapped in: before the other listeners (a
  // plain submit that waited for this autosave sends the bases as saved).
  document.addEventListener("htmx:afterRequest", mergeSaved, true);

  document.body.addEventListener("htmx:afterRequest", function (event) {
    const sent = event.detail.xhr && event.detail.xhr.aifactorySent;
    window.setTimeout(function () { apply(sent); }, 0);
  });
})();
