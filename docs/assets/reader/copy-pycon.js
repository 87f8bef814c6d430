// Code blocks as a reader uses them. Runs at the end of the page, before Material
// sets up its code blocks (on DOMContentLoaded), so Material's copy button and
// code style apply to what this script prepares.
//
// The copy button of a ">>>" example copies only the code: the lines after the
// ">>> " and "... " prompts, without the prompts and without the output, so that a
// paste into `python` runs. Material copies an ancestor's data-copy attribute when
// there is one. An output line never starts a statement: "... " continues code only
// right after a code line (a traceback's "..." line is output). A blank line follows
// a statement with "... " lines, as the interactive prompt needs.
(function () {
  "use strict";

  function codeOf(text) {
    var kept = [];
    var inCode = false;
    var continued = false;  // the statement being copied has "... " lines
    text.split("\n").forEach(function (line) {
      if (line === ">>>" || line.indexOf(">>> ") === 0) {
        if (continued) kept.push("");  // a blank line ends a compound statement at the prompt
        kept.push(line.slice(4));
        inCode = true;
        continued = false;
      } else if (inCode && (line === "..." || line.indexOf("... ") === 0)) {
        kept.push(line.slice(4));
        continued = true;
      } else {
        inCode = false;
      }
    });
    return kept.join("\n") + (continued ? "\n" : "");
  }

  function markExamples(root) {
    var blocks = root.querySelectorAll(".language-pycon pre > code");
    Array.prototype.forEach.call(blocks, function (code) {
      code.setAttribute("data-copy", codeOf(code.textContent));
    });
  }

  function prepare() {
    markExamples(document);
  }

  prepare();
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(prepare);  // again after each page load (idempotent)
  }
})();
