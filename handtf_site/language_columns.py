"""A Python-Markdown extension: a table column headed by a language's name is in that language.

The glossary pairs each English term with its Chinese one, in columns headed
``English`` and ``中文``. A screen reader reads a cell in the page's language
unless the cell says otherwise (WCAG 3.1.2), so the Chinese terms on the
English page were read letter by letter as English, and the English ones on
the Chinese page with a Chinese voice. This extension gives the header cell
and every cell of such a column ``lang`` (``en`` or ``zh``), on any page, in
either language (on its own page's language the attribute only repeats it).
Listed in mkdocs.yml's ``markdown_extensions``, so Zensical runs it too.
"""

from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

LANGUAGES = {"English": "en", "中文": "zh"}  # a column header -> the language of its column


def mark_columns(table):
    """Set ``lang`` on the cells of each column of ``table`` whose header names a language.

    >>> import xml.etree.ElementTree as etree
    >>> table = etree.fromstring("<table><thead><tr><th>English</th><th>中文</th><th>Meaning</th></tr></thead>"
    ...     "<tbody><tr><td>token</td><td>词元</td><td>a unit</td></tr></tbody></table>")
    >>> mark_columns(table)
    >>> [(cell.text, cell.get("lang")) for cell in table.iter() if cell.tag in ("th", "td")]
    [('English', 'en'), ('中文', 'zh'), ('Meaning', None), ('token', 'en'), ('词元', 'zh'), ('a unit', None)]
    """
    head = table.find("thead/tr")
    if head is None:
        return
    columns = {i: LANGUAGES[(cell.text or "").strip()] for i, cell in enumerate(head) if (cell.text or "").strip() in LANGUAGES}
    for row in table.iter("tr"):
        for i, cell in enumerate(row):
            if i in columns:
                cell.set("lang", columns[i])


class _LanguageColumns(Treeprocessor):
    def run(self, root):
        for table in root.iter("table"):
            mark_columns(table)


class LanguageColumns(Extension):
    def extendMarkdown(self, md):
        md.treeprocessors.register(_LanguageColumns(md), "handtf_language_columns", 5)


def makeExtension(**kwargs):
    return LanguageColumns(**kwargs)
