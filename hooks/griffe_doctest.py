"""A Griffe extension for the API reference: doctests as code, Sphinx roles as links.

handtf's docstrings are written for ``pytest --doctest-modules`` and Sphinx. Before
mkdocstrings parses them, this wraps each run of doctest lines (a ``>>>`` line up to
the next blank line) in a ```` ```pycon ```` fence, and turns ``:func:`name``` (and
``:mod:``, ``:class:``, ``:meth:``, ``:attr:``, ``:data:``) into an autorefs link to
the object ``name`` resolves to, or into plain code when it resolves to nothing.

Why our own: mkdocstrings-python reads ``>>>`` lines as code only inside a
Google-style "Examples" section (mkdocstrings/python #18, #136), and Griffe's Sphinx
parser reads field lists but no inline roles (its add-on griffe-sphinx is for
sponsors only, mkdocstrings/griffe #379). Zensical runs Griffe extensions too.
"""

import re

import griffe

_ROLE = re.compile(r":(?:func|mod|class|meth|attr|data|obj):`~?([\w.]+)`")
_FENCE = re.compile(r"^\s*(```|~~~)")


def fence_doctests(text):
    """Wrap every doctest block of ``text`` in a ```` ```pycon ```` fence.

    >>> fence_doctests("Sum:\\n>>> 1 + 1\\n2\\n\\nDone.").splitlines()
    ['Sum:', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'Done.']
    """
    out, in_doctest, in_fence = [], False, False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and not in_doctest and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            if out and out[-1].strip():
                out.append("")  # a fence must not continue a paragraph
            out.append(indent + "```pycon")
            in_doctest = True
        elif in_doctest and not line.strip():
            out.append(indent + "```")
            in_doctest = False
        out.append(line)
    if in_doctest:
        out.append(indent + "```")
    return "\n".join(out)


def _resolve(name, obj):
    """The canonical path of ``name`` seen from ``obj`` (absolute, or relative to its module), or None."""
    module = obj if obj.is_module else obj.module
    for candidate in (name, f"{module.path}.{name}"):
        root, *parts = candidate.split(".")
        try:
            target = obj.modules_collection[root]
            for part in parts:
                target = target.members[part]
            while target.is_alias:
                target = target.final_target
        except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            continue
        return target.path
    return None


class DoctestMarkdown(griffe.Extension):
    """Rewrite every docstring of the loaded package as described in the module docstring."""

    def on_package(self, *, pkg, **kwargs):
        for obj in _walk(pkg):
            if obj.docstring is not None:
                text = fence_doctests(obj.docstring.value)
                obj.docstring.value = _ROLE.sub(lambda m: _link(m[1], obj), text)


def _link(name, obj):
    path = _resolve(name, obj)
    return f"[`{name}`][{path}]" if path else f"`{name}`"


def _walk(obj):
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _walk(member)
