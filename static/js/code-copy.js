// Copy buttons for code listings (templates/components/streamfield/blocks/code_block.html).
// Progressive enhancement: without this script, or without the clipboard API, the code is plain
// selectable text and no button is shown. The button copies the code only (not the line
// numbers) and announces the result through a polite live region.
(function () {
  "use strict";
  if (!navigator.clipboard || !window.isSecureContext) {
    return;
  }
  document.querySelectorAll("[data-code-block]").forEach(function (block) {
    var header = block.querySelector(".block-code__header");
    // With line numbers Pygments puts the code in the table's "code" cell.
    var code = block.querySelector("td.code pre") || block.querySelector(".highlight pre");
    if (!header || !code) {
      return;
    }
    var button = document.createElement("button");
    button.type = "button";
    button.className = "block-code__copy";
    button.textContent = "Copy";
    var label = block.querySelector(".block-code__filename") || block.querySelector(".block-code__language");
    button.setAttribute("aria-label", "Copy code" + (label ? " (" + label.textContent + ")" : ""));
    var status = document.createElement("span");
    status.className = "block-code__status";
    status.setAttribute("aria-live", "polite");
    status.setAttribute("role", "status");
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(code.textContent).then(
        function () { status.textContent = "Copied"; },
        function () { status.textContent = "Copy failed: select the code and copy it"; }
      );
    });
    header.appendChild(button);
    header.appendChild(status);
  });
})();
