// The header's theme link, enhanced: without JavaScript it opens /theme/, a form that stores the
// choice in the "theme" cookie (home/theme.py); with it, a click switches between light and dark
// in place, storing the same cookie, and reloads /theme.css, which reads it. The page's HTML is
// the same in both themes, so nothing else changes.
(function () {
  "use strict";
  var link = document.querySelector("[data-theme-toggle]");
  var sheet = document.getElementById("theme-stylesheet");
  if (!link || !sheet) return;

  link.addEventListener("click", function (event) {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    // dark.css sets color-scheme: dark on the root; the light theme leaves site.css's "light".
    var dark = getComputedStyle(document.documentElement).colorScheme.indexOf("dark") !== -1;
    var theme = dark ? "light" : "dark";
    var secure = window.location.protocol === "https:" ? "; Secure" : "";
    document.cookie = "theme=" + theme + "; Path=/; Max-Age=31536000; SameSite=Lax" + secure;
    var fresh = sheet.cloneNode();
    fresh.href = sheet.href.split("?")[0] + "?v=" + Date.now(); // a new URL: the browser asks again
    fresh.addEventListener("load", function () {
      sheet.remove();
      sheet = fresh;
      document.documentElement.dataset.themeApplied = theme;
    });
    sheet.after(fresh);
  });
})();
