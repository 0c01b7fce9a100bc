// The phone's sticky bar (#live-bar, under 992 px) mirrors the save state of the
// status line (#save-status), which is far above the viewport once the person has
// scrolled: its data-state and its text, in one short line. Both are swapped by
// htmx (out of band) and set by app.js's setStatus, so any change of the page is
// followed (at most once a frame). The copy is hidden from screen readers: the
// status line is the live region that announces it.
(function () {
  "use strict";
  var scheduled = false;

  function mirror() {
    scheduled = false;
    var status = document.getElementById("save-status");
    var copy = document.getElementById("live-bar-save");
    if (!copy) return;
    var state = status ? status.dataset.state || "idle" : "";
    var text = status ? status.textContent.replace(/\s+/g, " ").trim() : "";
    if (copy.dataset.state !== state) copy.dataset.state = state;
    if (copy.textContent !== text) copy.textContent = text;
    copy.hidden = !text;
  }

  function later() {
    if (scheduled) return;
    scheduled = true;
    window.requestAnimationFrame(mirror);
  }

  document.addEventListener("DOMContentLoaded", function () {
    mirror();
    new MutationObserver(later).observe(document.body, {
      childList: true,
      subtree: true,
      characterData: true,
      attributes: true,
      attributeFilter: ["data-state"],
    });
  });
})();
