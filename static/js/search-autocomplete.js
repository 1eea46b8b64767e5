// Search-as-you-type for every form with data-autocomplete-url: fills a <datalist> with
// matching article titles from /search/autocomplete/. Progressive enhancement: without this
// script the forms still submit to /search/ as usual.
(function () {
  "use strict";
  var DELAY_MS = 150;
  var MIN_CHARS = 2;

  function enhance(form, index) {
    var input = form.querySelector('input[name="query"]');
    if (!input || !window.fetch) return;
    var list = document.createElement("datalist");
    list.id = "search-suggestions-" + index;
    form.appendChild(list);
    input.setAttribute("list", list.id);
    input.setAttribute("autocomplete", "off");
    var timer = null;
    var controller = null;

    input.addEventListener("input", function () {
      clearTimeout(timer);
      var text = input.value.trim();
      if (text.length < MIN_CHARS) { list.replaceChildren(); return; }
      timer = setTimeout(function () {
        if (controller) controller.abort();
        controller = new AbortController();
        var url = form.dataset.autocompleteUrl + "?q=" + encodeURIComponent(text);
        fetch(url, { signal: controller.signal, headers: { Accept: "application/json" } })
          .then(function (response) { return response.ok ? response.json() : { results: [] }; })
          .then(function (data) {
            list.replaceChildren.apply(list, data.results.map(function (result) {
              var option = document.createElement("option");
              option.value = result.title; // textContent-safe: never parsed as HTML
              return option;
            }));
          })
          .catch(function () { /* aborted or offline: keep the plain form */ });
      }, DELAY_MS);
    });
  }

  document.querySelectorAll("form[data-autocomplete-url]").forEach(enhance);
})();
