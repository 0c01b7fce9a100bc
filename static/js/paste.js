// "Paste a table" sits inside the wizard's autosave form: what is typed into it (and
// the column choices of its preview) is not part of the proposal, so those events do
// not reach the autosave. Loaded once per table; the guard makes it act once.
(function () {
  if (window.aifactoryPaste) return;
  window.aifactoryPaste = true;
  function stop(event) {
    const target = event.target;
    if (target && target.closest && target.closest("[data-paste]")) event.stopPropagation();
  }
  window.addEventListener("input", stop, true);
  window.addEventListener("change", stop, true);
})();
