"""A Python-Markdown extension: a figure that has a phone variant is shown with it.

``scripts/render_figures.py`` draws a figure too wide for a phone's column twice:
``NAME.svg`` and a narrow ``NAME.phone.svg`` (panels stacked, a diagram laid out
again), in each scheme and language (``NAME.phone.zh.dark.svg``). A page shows
``![...](assets/figures/NAME.svg#only-light)`` as always; this extension puts
the phone variant right after each such image, with the same alt text, and marks
the pair: ``class="handtf-wide"`` and ``class="handtf-phone"``. extra.css shows
the one that fits the screen (the phone variant up to 44.9375em, where Material
puts its phone layout). Pages and their twins stay as they are, and a figure
gets its phone variant on every page that shows it.

Listed in mkdocs.yml's ``markdown_extensions`` with the folder of the figures
(``figures: docs/assets/figures``, relative to where the site is built from).

>>> import markdown, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> (folder / "c-attn.phone.zh.dark.svg").write_text("<svg/>")
6
>>> html = markdown.markdown("![w](assets/figures/c-attn.zh.dark.svg#only-dark)\\n![x](assets/figures/wte.svg)",
...                          extensions=[PhoneFigures(figures=str(folder))])
>>> print(html.replace("> <", ">\\n<"))
<p><img alt="w" class="handtf-wide" src="assets/figures/c-attn.zh.dark.svg#only-dark" />
<img alt="w" class="handtf-phone" src="assets/figures/c-attn.phone.zh.dark.svg#only-dark" />
<img alt="x" src="assets/figures/wte.svg" /></p>
"""

import copy
import re
from pathlib import Path

from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

FIGURE = re.compile(r"^(?P<folder>(?:.*/)?assets/figures/)(?P<name>[\w-]+)(?P<rest>(?:\.zh)?(?:\.dark)?\.svg)(?P<fragment>#.*)?$")
PHONE_INFIX = ".phone"  # scripts/figures/registry.py files a phone variant as NAME.phone[.zh][.dark].svg


def phone_variant(src, folder):
    """The ``src`` of the phone variant of the figure at ``src``, or None if ``folder`` has none.

    >>> phone_variant("../assets/figures/wte.svg#only-light", Path("docs/assets/figures")) is None
    True
    """
    match = FIGURE.match(src)
    if not match or PHONE_INFIX in match["name"]:
        return None
    file = match["name"] + PHONE_INFIX + match["rest"]
    if not (Path(folder) / file).is_file():
        return None
    return match["folder"] + file + (match["fragment"] or "")


def _add_class(element, name):
    element.set("class", " ".join(filter(None, [element.get("class"), name])))


class _AddPhoneVariants(Treeprocessor):
    def __init__(self, md, folder):
        super().__init__(md)
        self.folder = folder

    def run(self, root):
        for parent in list(root.iter()):
            for index in reversed(range(len(parent))):
                image = parent[index]
                src = image.get("src", "") if image.tag == "img" else ""
                phone_src = phone_variant(src, self.folder)
                if phone_src is None:
                    continue
                phone = copy.deepcopy(image)
                phone.set("src", phone_src)
                _add_class(image, "handtf-wide")
                _add_class(phone, "handtf-phone")
                phone.tail, image.tail = image.tail, "\n"
                parent.insert(index + 1, phone)


class PhoneFigures(Extension):
    """After each figure that has a phone variant, the variant (see the module's docstring)."""

    def __init__(self, **kwargs):
        self.config = {"figures": ["docs/assets/figures", "the folder of the figures, relative to the working directory"]}
        super().__init__(**kwargs)

    def extendMarkdown(self, md):
        # before MkDocs' own treeprocessor (priority 0) makes the paths relative to the built page
        md.treeprocessors.register(_AddPhoneVariants(md, self.getConfig("figures")), "handtf_phone_figures", 2)


def makeExtension(**kwargs):
    return PhoneFigures(**kwargs)
