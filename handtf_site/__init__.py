"""What the handtf site's pages need from Python beyond MkDocs' and Material's own: Markdown
extensions, listed in mkdocs.yml, that any host of Python-Markdown extensions runs (MkDocs
and Zensical alike), unlike the MkDocs hooks in hooks/."""
