// Typesets the TeX that pymdownx.arithmatex leaves in the page
// (<span class="arithmatex">\(...\)</span> inline, <div class="arithmatex">\[...\]</div>
// on its own lines) with KaTeX, which writes the formula twice: as HTML for the
// eye and as MathML, with the TeX as its annotation, for screen readers.
document$.subscribe(({ body }) => {
  for (const element of body.querySelectorAll(".arithmatex")) {
    if (element.querySelector(".katex")) continue
    const tex = element.textContent.trim().replace(/^\\[(\[]/, "").replace(/\\[)\]]$/, "")
    katex.render(tex, element, { displayMode: element.tagName === "DIV", throwOnError: false })
  }
})
