(function () {
  "use strict";
  var form = document.getElementById("filters");
  var items = Array.prototype.slice.call(document.querySelectorAll("details.scenario"));
  function apply() {
    if (!form) { return; }
    var outcomes = {};
    Array.prototype.forEach.call(form.querySelectorAll("input[name=outcome]"), function (c) { outcomes[c.value] = c.checked; });
    var profile = form.elements.profile ? form.elements.profile.value : "";
    var area = form.elements.area ? form.elements.area.value : "";
    var shown = 0;
    items.forEach(function (el) {
      var show = outcomes[el.getAttribute("data-outcome")] !== false &&
        (!profile || el.getAttribute("data-profile") === profile) &&
        (!area || el.getAttribute("data-area") === area);
      el.hidden = !show;
      if (show) { shown++; }
    });
    var out = document.getElementById("shown");
    if (out) { out.textContent = shown + " of " + items.length + " scenarios shown"; }
  }
  function showAll() {
    Array.prototype.forEach.call(form.querySelectorAll("input[name=outcome]"), function (c) { c.checked = true; });
    if (form.elements.profile) { form.elements.profile.value = ""; }
    if (form.elements.area) { form.elements.area.value = ""; }
    apply();
  }
  function openTarget() {
    var id = location.hash.slice(1);
    if (!id) { return; }
    try { id = decodeURIComponent(id); } catch (e) { return; }
    var el = document.getElementById(id);
    if (!el) { return; }
    if (el.tagName === "DETAILS") {
      if (el.hidden && form) { showAll(); }
      el.open = true;
      el.scrollIntoView();
    }
  }
  if (form) {
    form.hidden = false;
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    var reset = document.getElementById("show-all");
    if (reset) { reset.addEventListener("click", showAll); }
  }
  window.addEventListener("hashchange", openTarget);
  apply();
  openTarget();
})();
