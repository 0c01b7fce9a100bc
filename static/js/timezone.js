// The time zone offered from the browser (sign-up, and Settings until the person has
// chosen one): a select marked data-browser-zone takes the browser's IANA zone when
// it lists it, and says so beside it. The person sees it and may change it; nothing
// is stored until they submit the form. A file of its own: the CSP allows no inline
// script.
(function () {
  "use strict";
  var zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (e) {
    return;
  }
  document.querySelectorAll("select[data-browser-zone]").forEach(function (select) {
    var listed = Array.prototype.some.call(select.options, function (option) {
      return option.value === zone;
    });
    if (!zone || !listed || select.value === zone) return;
    select.value = zone;
    var note = document.createElement("div");
    note.className = "form-text";
    note.id = select.id + "-browser-zone";
    note.setAttribute("data-testid", "browser-zone-note");
    note.textContent = select.getAttribute("data-browser-zone-note") || "";
    select.insertAdjacentElement("afterend", note);
    var described = select.getAttribute("aria-describedby");
    select.setAttribute("aria-describedby", (described ? described + " " : "") + note.id);
  });
})();
