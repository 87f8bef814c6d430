// The header's palette button and language menu, as controls a keyboard and a
// screen reader can use (issue 40):
// - the palette button (overrides/partials/palette.html) switches the scheme
//   as a click on the label Material shows would, and says whether
//   the page is dark (aria-pressed), also after a switch by any other means;
// - the language menu (overrides/partials/alternate.html) opens on hover and
//   on focus, as Material's CSS has it; Escape closes it and it stays closed
//   until the pointer and the focus have left it (WCAG 1.4.13); its button
//   says whether it is open (aria-expanded).
(function () {
  "use strict";

  function palette() {
    var button = document.querySelector(".handtf-palette");
    if (!button) return;
    var dark = button.getAttribute("data-handtf-dark");
    function sync() {
      var pressed = document.body.getAttribute("data-md-color-scheme") === dark;
      button.setAttribute("aria-pressed", pressed ? "true" : "false");
    }
    button.addEventListener("click", function () {
      // the radio of the scheme Material's visible label switches to, changed as a click on the label
      // would change it (without the click, which would move the focus to the hidden radio)
      var label = document.querySelector(".handtf-palette__label:not([hidden])");
      var radio = label && label.control;
      if (!radio) return;
      radio.checked = true;
      radio.dispatchEvent(new Event("change", { bubbles: true }));
    });
    // Material's form switches on Enter itself: not a second time for the button's Enter
    button.addEventListener("keydown", function (event) {
      if (event.key === "Enter") event.stopPropagation();
    });
    new MutationObserver(sync).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
    sync();
  }

  function languages() {
    document.querySelectorAll(".md-select").forEach(function (select) {
      var button = select.querySelector("button");
      var hovered = false;
      // within: whether the focus is (or is about to be) inside the menu
      function sync(within) {
        if (!hovered && !within) select.removeAttribute("data-handtf-dismissed");
        var open = (hovered || within) && !select.hasAttribute("data-handtf-dismissed");
        if (button) button.setAttribute("aria-expanded", open ? "true" : "false");
      }
      function focusWithin() { return select.contains(document.activeElement); }
      select.addEventListener("mouseenter", function () { hovered = true; sync(focusWithin()); });
      select.addEventListener("mouseleave", function () { hovered = false; sync(focusWithin()); });
      select.addEventListener("focusin", function () { sync(true); });
      select.addEventListener("focusout", function (event) { sync(select.contains(event.relatedTarget)); });
      document.addEventListener("keydown", function (event) {
        if (event.key !== "Escape" || !(hovered || select.contains(document.activeElement))) return;
        if (select.hasAttribute("data-handtf-dismissed")) return;
        select.setAttribute("data-handtf-dismissed", "");
        if (focusWithin() && button) button.focus();
        sync(focusWithin());
      });
      sync(focusWithin());
    });
  }

  function start() {
    palette();
    languages();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
