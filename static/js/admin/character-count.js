// Character counters for admin text fields with a maxlength: "42 / 100 characters" under the field.
// Counters appear for fields present at load and for fields added later (StreamField blocks)
// the first time they are focused. Fields marked data-no-character-count (the listings' search
// boxes, whose maxlength only stops pasted text) get none.
(function () {
  "use strict";

  var SELECTOR =
    "input[maxlength]:not([type=hidden]):not([type=number]):not([data-no-character-count]), " +
    "textarea[maxlength]:not([data-no-character-count])";

  function counterFor(field) {
    var id = field.id ? field.id + "-character-count" : null;
    var existing = id ? document.getElementById(id) : null;
    if (existing) return existing;
    var counter = document.createElement("p");
    counter.className = "help-block editorial-character-count";
    counter.setAttribute("aria-live", "polite");
    if (id) counter.id = id;
    field.insertAdjacentElement("afterend", counter);
    return counter;
  }

  function update(field) {
    var max = parseInt(field.getAttribute("maxlength"), 10);
    if (!max || max <= 0) return;
    var used = field.value.length;
    var counter = counterFor(field);
    counter.textContent = used + " / " + max + " characters";
    counter.style.fontWeight = used >= max ? "700" : "";
  }

  function onEvent(event) {
    if (event.target.matches && event.target.matches(SELECTOR)) update(event.target);
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(SELECTOR).forEach(update);
  });
  document.addEventListener("input", onEvent);
  document.addEventListener("focusin", onEvent);
})();
