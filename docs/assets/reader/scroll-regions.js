// A block that scrolls sideways can be scrolled with the keyboard (WCAG 2.1.1):
// a figure wider than the column (on a phone), a wide formula or table, the
// notebook's plot. While it is wider than its box it is a tab stop (then the
// arrow keys scroll it), named for a screen reader after what it holds; once it
// fits again it is neither. Material does the same for its code blocks; the
// playground does it for its heat maps (playground.js, markScrollable).
// Checked by tests/accessibility.py (axe-core's scrollable-region-focusable).
(function () {
  "use strict";

  var zh = (document.documentElement.lang || "").toLowerCase().indexOf("zh") === 0;
  var KINDS = [
    // [selector, the name of such a block]
    [".md-typeset p:has(> img[src*='assets/figures/'])", function (el) { return el.querySelector("img").alt; }],
    [".md-typeset .handtf-plot", function (el) { var img = el.querySelector("img"); return img ? img.alt : ""; }],
    [".md-typeset div.arithmatex", function () { return zh ? "公式" : "Formula"; }],
    [".md-typeset span.arithmatex", function () { return zh ? "公式" : "Formula"; }],
    [".md-typeset .md-typeset__scrollwrap", function () { return zh ? "表格" : "Table"; }],
  ];
  var frame = 0;

  function mark() {
    frame = 0;
    var blocks = [];
    KINDS.forEach(function (kind) {
      document.querySelectorAll(kind[0]).forEach(function (el) { blocks.push([el, kind[1]]); });
    });
    // all reads, then all writes: one layout
    var wide = blocks.map(function (b) { return b[0].scrollWidth > b[0].clientWidth + 1; });
    blocks.forEach(function (b, i) {
      var el = b[0];
      if (wide[i] && !el.hasAttribute("data-handtf-scroll")) {
        el.setAttribute("data-handtf-scroll", "");
        el.tabIndex = 0;
        el.setAttribute("role", "region");
        el.setAttribute("aria-label", b[1](el) || (zh ? "可横向滚动的内容" : "Content that scrolls sideways"));
      } else if (!wide[i] && el.hasAttribute("data-handtf-scroll")) {
        el.removeAttribute("data-handtf-scroll");
        el.removeAttribute("tabindex");
        el.removeAttribute("role");
        el.removeAttribute("aria-label");
      }
    });
  }

  function later() {
    if (!frame) frame = requestAnimationFrame(mark);
  }

  // Chromium scrolls a focused block with the arrow keys, but not an inline
  // formula (span.arithmatex, inline-block): the keys scroll every region here.
  document.addEventListener("keydown", function (event) {
    var el = event.target;
    if (!el.hasAttribute || !el.hasAttribute("data-handtf-scroll")) return;
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var to = {
      ArrowLeft: el.scrollLeft - 40,
      ArrowRight: el.scrollLeft + 40,
      Home: 0,
      End: el.scrollWidth,
    }[event.key];
    if (to === undefined) return;
    el.scrollLeft = to;
    event.preventDefault();
  });

  window.addEventListener("resize", later);
  window.addEventListener("load", later);
  document.addEventListener("DOMContentLoaded", function () {
    later();
    // a figure's width is known once it has loaded
    document.querySelectorAll(".md-typeset img").forEach(function (img) {
      if (!img.complete) img.addEventListener("load", later);
    });
  });
})();
