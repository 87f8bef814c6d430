"""The package's folders read in the site's order: no import circle between files or folders (issue 49).

Each module's imports are read from its source (every ``import`` and ``from ... import``,
those inside functions too), so a circle fails here before it fails at import time.
A folder imports only from itself and the folders before it:
the boundary (``checks``, ``readers``, ``layouts``, ``trees``, ``display``),
``blocks``, ``model`` (the main line), ``patterns`` (the later chapters' hand-set
models), ``training``, ``seq2seq``, ``cli``.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORDER = ("", "blocks", "model", "patterns", "training", "seq2seq", "cli")  # "": handtf/*.py, the boundary


def module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(sources):
    """{module: the handtf modules it imports}, from each module's source (relative and absolute imports)."""
    found = {}
    for name, (path, text) in sources.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                candidates = [f"{module}.{alias.name}" for alias in node.names] + [module]
                targets |= {next(c for c in candidates if c in sources or c == module)}
            elif isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
        found[name] = {t for t in targets if t in sources and t != name}
    return found


def folder(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (ROOT / "handtf" / parts[1]).is_dir()) else ""


def backward_imports(graph):
    """``a -> b`` for every import of a later folder's module (the package's own ``__init__``/``__main__`` aside)."""
    return sorted(f"{a} -> {b}" for a, targets in graph.items() if a not in ("handtf", "handtf.__main__")
                  for b in targets if ORDER.index(folder(b)) > ORDER.index(folder(a)))


def circles(graph):
    """Every import circle between files, as the modules around it (the package ``__init__`` files aside)."""
    graph = {a: {b for b in targets if not (ROOT / Path(*b.split("."))).is_dir()} for a, targets in graph.items()}
    found, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def package_sources():
    return {module_name(path): (path, path.read_text(encoding="utf-8")) for path in sorted((ROOT / "handtf").rglob("*.py"))}


def test_no_folder_imports_a_later_folder():
    assert backward_imports(imports(package_sources())) == []


def test_no_import_circle_between_files():
    assert circles(imports(package_sources())) == []


def test_the_checks_would_catch_the_old_circles():
    """Not vacuous: the layout before issue 49 (the main line importing the compiler, the induction head its trainer)."""
    path = ROOT / "handtf" / "model" / "inference.py"
    old = {"handtf.model.inference": (path, "from ..patterns.compiler import CompiledPattern\n"),
           "handtf.patterns.compiler": (ROOT / "handtf" / "patterns" / "compiler.py", "from ..model.inference import complete\n"),
           "handtf.patterns.induction": (ROOT / "handtf" / "patterns" / "induction.py", "from ..training.backprop import loss_and_grads\n"),
           "handtf.training.backprop": (ROOT / "handtf" / "training" / "backprop.py", "")}
    graph = imports(old)
    assert backward_imports(graph) == ["handtf.model.inference -> handtf.patterns.compiler",
                                       "handtf.patterns.induction -> handtf.training.backprop"]
    assert circles(graph) == [["handtf.model.inference", "handtf.patterns.compiler", "handtf.model.inference"]]
