// Typesets the TeX that pymdownx.arithmatex leaves in the page
// (<span class="arithmatex">\(...\)</span> inline, <div class="arithmatex">\[...\]</div>
// on its own lines) with KaTeX, which writes the formula twice: as HTML for the
// eye and as MathML, with the TeX as its annotation, for screen readers.
//
// An inline formula is an inline block (extra.css), and a line may break on
// either side of an inline block: a comma or 。 after a formula could start the
// next line by itself. So the punctuation that touches a formula is glued to it,
// in a <span class="arithmatex-glue"> that does not wrap.
const CLOSING = /^[,.;:!?%)\]}\u2019\u201d\u00bb\uff0c\u3002\u3001\uff1b\uff1a\uff01\uff1f\uff09\u3011\u300b\u300d\u300f\u2026]+/
const OPENING = /[(\[{\u2018\u201c\u00ab\uff08\u3010\u300a\u300c\u300e]+$/

function glue(math) {
  const next = math.nextSibling, previous = math.previousSibling
  const tail = next && next.nodeType === Node.TEXT_NODE && next.data.match(CLOSING)
  const head = previous && previous.nodeType === Node.TEXT_NODE && previous.data.match(OPENING)
  if (!tail && !head) return
  const glued = document.createElement("span")
  glued.className = "arithmatex-glue"
  math.replaceWith(glued)
  if (head) glued.append(previous.splitText(previous.data.length - head[0].length))
  glued.append(math)
  if (tail) {
    next.splitText(tail[0].length)
    glued.append(next)
  }
}

document$.subscribe(({ body }) => {
  for (const element of body.querySelectorAll(".arithmatex")) {
    if (element.querySelector(".katex")) continue
    const tex = element.textContent.trim().replace(/^\\[(\[]/, "").replace(/\\[)\]]$/, "")
    katex.render(tex, element, { displayMode: element.tagName === "DIV", throwOnError: false })
    if (element.tagName === "SPAN") glue(element)
  }
})
