// "Load more" in place: the pager's rel=next link is a real link to ?page=N (it works without
// JavaScript); with it, the next page's cards are fetched and appended to this page's list, and
// the address becomes that ?page=N (history.replaceState), so Back from an article opened from
// the new cards returns to them rather than to page 1.
(function () {
  "use strict";
  var listing = document.querySelector(".listing");
  if (!listing || !window.fetch || !window.DOMParser || !window.history.replaceState) return;

  listing.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest('.pager a[rel="next"]');
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    if (link.getAttribute("aria-busy") === "true") return;
    link.setAttribute("aria-busy", "true");
    var pageUrl = link.href;

    fetch(pageUrl, { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (html) {
        var next = new DOMParser().parseFromString(html, "text/html");
        var grid = listing.querySelector(".card-grid");
        var items = next.querySelectorAll(".listing .card-grid > li");
        if (!grid || !items.length) throw new Error("no cards");
        var first = null;
        items.forEach(function (item) {
          var copy = document.importNode(item, true);
          grid.appendChild(copy);
          first = first || copy;
        });
        // The address names the last page loaded: a reload or Back lands on those cards.
        window.history.replaceState({ loadMore: pageUrl }, "", pageUrl);
        var nextLink = next.querySelector('.listing .pager a[rel="next"]');
        if (nextLink) {
          link.href = nextLink.getAttribute("href");
          link.removeAttribute("aria-busy");
        } else {
          var pager = link.parentNode;
          link.remove();
          if (pager && !pager.querySelector("a")) pager.remove(); // no empty "More posts" landmark
        }
        var count = listing.querySelector("#listing-count");
        if (count && count.dataset.total) {
          // Same wording as the server's: "Showing 13 of 20 posts" or, from page 2, "Showing 14–30 of 40 posts"
          // (the featured article, shown above the cards, is counted: see components/pagination.html).
          var start = parseInt(count.dataset.start, 10) || 1;
          var end = (parseInt(count.dataset.end, 10) || 0) + items.length;
          count.dataset.end = end;
          count.textContent = "Showing " + (start === 1 ? end : start + "\u2013" + end) + " of " + count.dataset.total + " posts";
        }
        // Keyboard and screen reader users continue at the first new card.
        var target = first.querySelector("a");
        if (target) target.focus();
      })
      .catch(function () {
        window.location.href = pageUrl; // fall back to the plain link
      });
  });
})();
