"""Weight trees: nested dicts and lists with arrays at the leaves, walked one way.

The package, the site's hooks and the tests walk a tree of weights with these
three functions and no other: :func:`leaves` (every array, dict keys sorted,
the order ``adam_step`` pairs parameters with gradients in), :func:`paths`
(the same, each with its path, for messages) and :func:`tree_map` (a function
of the leaves of one or more trees of the same layout). :func:`read_only`
makes the package's own models and tables safe to share: a write into them
raises instead of changing every later answer.

>>> tree = {"wte": np.zeros((2, 8)), "blocks": [{"b": np.zeros(3)}]}
>>> [a.shape for a in leaves(tree)]
[(3,), (2, 8)]
>>> [path for path, _ in paths(tree)]
["['blocks'][0]['b']", "['wte']"]
>>> tree_map(lambda a: a.size, tree)
{'wte': 16, 'blocks': [{'b': 3}]}

Everything else that walks a tree is built on these two walks, :func:`paths`
and :func:`tree_map`: :func:`read_only`, :func:`equal` (the value comparison
of :class:`ByValue`, so two models compare with ``==``), ``handtf.checks``'
copy of a result that shares memory with its arguments, and the layouts'
reading of a weight dict.
"""

from dataclasses import fields
from types import MappingProxyType

import numpy as np


def leaves(tree):
    """Every leaf of a nested dict/list/tuple, in a fixed order (dict keys sorted)."""
    return [leaf for _, leaf in paths(tree)]


def paths(tree, prefix=""):
    """``(path, leaf)`` for every leaf, in :func:`leaves`' order; a path reads ``['blocks'][0]['attn']``."""
    if isinstance(tree, dict):
        return [item for key in sorted(tree, key=str) for item in paths(tree[key], f"{prefix}[{key!r}]")]
    if isinstance(tree, (list, tuple)):
        return [item for i, value in enumerate(tree) for item in paths(value, f"{prefix}[{i}]")]
    return [(prefix, tree)]


def tree_map(function, tree, *others, into=(dict, list, list), path="", leaf=None, check=None, at=False):
    """``function(leaf, *leaves at the same place in others)`` at every leaf, in a tree of plain dicts and lists.

    ``others`` must have ``tree``'s layout: the same keys, lists of the same
    length (an error names the first place they differ). ``into`` gives the
    types of the dicts, lists and tuples built (``read_only`` builds read-only
    ones; a tuple becomes a list by default). For a reader of a layout
    (``handtf.layouts.check_tree``): ``leaf(node)`` says a dict or tuple of
    ``tree`` is a leaf (a shape), ``check(path, node, *others)`` runs at each
    other node first (to word its own error), and with ``at`` the function
    gets the leaf's path first; ``path`` is the root's.

    >>> tree_map(lambda x, y: x + y, [1, 2, 3], [10, 20])
    Traceback (most recent call last):
    ...
    ValueError: the trees must have one layout, got a list of 3 items and one of 2 at the top
    """
    if not isinstance(tree, (dict, list, tuple)) or (leaf is not None and leaf(tree)):
        return function(path, tree, *others) if at else function(tree, *others)
    if check is not None:
        check(path, tree, *others)
    more = {"into": into, "leaf": leaf, "check": check, "at": at}
    if isinstance(tree, dict):
        for other in others:
            if not isinstance(other, dict) or set(other) != set(tree):
                raise ValueError(f"the trees must have one layout, got a dict with keys {sorted(map(str, tree))} "
                                 f"and {describe(other)} at {path or 'the top'}")
        return into[0]({key: tree_map(function, value, *(other[key] for other in others), path=f"{path}[{key!r}]", **more)
                        for key, value in tree.items()})
    for other in others:
        if not isinstance(other, (list, tuple)) or len(other) != len(tree):
            raise ValueError(f"the trees must have one layout, got a list of {len(tree)} items and "
                             f"{'one of ' + str(len(other)) if isinstance(other, (list, tuple)) else describe(other)} "
                             f"at {path or 'the top'}")
    kind = into[2] if isinstance(tree, tuple) else into[1]
    return kind(tree_map(function, *values, path=f"{path}[{i}]", **more) for i, values in enumerate(zip(tree, *others)))


def describe(tree):
    """What a tree is at one place, for :func:`tree_map`'s message."""
    if isinstance(tree, dict):
        return f"a dict with keys {sorted(map(str, tree))}"
    return f"a list of {len(tree)} items" if isinstance(tree, (list, tuple)) else f"a {type(tree).__name__}"


def equal(a, b):
    """Whether two trees hold the same values at the same paths (arrays: the same dtype, shape and numbers).

    >>> equal({"w": np.ones(2)}, {"w": np.ones(2)}), equal({"w": np.ones(2)}, {"w": np.ones(3)})
    (True, False)
    """
    left, right = paths(a), paths(b)
    return [p for p, _ in left] == [p for p, _ in right] and all(same_leaf(x, y) for (_, x), (_, y) in zip(left, right))


def same_leaf(x, y):
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return (isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.dtype == y.dtype
                and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"))
    return type(x) is type(y) and bool(x == y)


class ByValue:
    """A dataclass whose ``==`` compares its fields by value, arrays included (``eq=False`` on the dataclass).

    numpy's ``==`` of two arrays is an array, which a dataclass's own ``==``
    cannot read ("the truth value ... is ambiguous"). Not hashable: the arrays
    inside can change.
    """

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return equal([getattr(self, f.name) for f in fields(self)], [getattr(other, f.name) for f in fields(other)])

    __hash__ = None


class _ReadsItems:
    """What a read-only dict and list read from their private ``_items``, not from their own storage."""

    __slots__ = ()

    def __iter__(self):
        return iter(self._items)

    def __reversed__(self):
        return reversed(self._items)

    def __len__(self):
        return len(self._items)

    def __contains__(self, key):
        return key in self._items

    def __ne__(self, other):
        return not self == other



class ReadOnlyDict(_ReadsItems, dict):
    """A dict that refuses every change; ``copy.deepcopy`` and ``dict(...)`` of it give a plain, writeable one.

    Every read goes to a private ``MappingProxyType``, not to the dict's own storage: ``dict.__setitem__(d, ...)``
    gets past the refusals below, but what it writes is never read (not by ``d[k]``, ``**d``, ``dict(d)``, ``==``).
    """

    __slots__ = ("_items",)

    def __init__(self, items=()):
        items = dict(items)
        super().__init__(items)
        object.__setattr__(self, "_items", MappingProxyType(items))

    def _refuse(self, *args, **kwargs):
        raise TypeError("this dict is read-only (shared by every caller of handtf); change a copy: copy.deepcopy(...)")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = __setattr__ = _refuse

    def __getitem__(self, key):
        return self._items[key]

    def __eq__(self, other):
        return dict(self._items) == other

    def __or__(self, other):
        return dict(self._items) | other

    def __ror__(self, other):
        return other | dict(self._items)

    def __repr__(self):
        return repr(dict(self._items))

    def get(self, key, default=None):
        return self._items.get(key, default)

    def keys(self):
        return self._items.keys()

    def values(self):
        return self._items.values()

    def items(self):
        return self._items.items()

    def copy(self):
        return dict(self._items)

    def __reduce__(self):
        return dict, (dict(self._items),)

    def __deepcopy__(self, memo):
        import copy

        return {copy.deepcopy(key, memo): copy.deepcopy(value, memo) for key, value in self._items.items()}


class ReadOnlyList(_ReadsItems, list):
    """A list that refuses every change; ``copy.deepcopy`` and ``list(...)`` of it give a plain, writeable one.

    Every read goes to a private tuple: what ``list.__setitem__(l, ...)`` writes is never read.
    """

    __slots__ = ("_items",)

    def __init__(self, items=()):
        items = tuple(items)
        super().__init__(items)
        object.__setattr__(self, "_items", items)

    def _refuse(self, *args, **kwargs):
        raise TypeError("this list is read-only (shared by every caller of handtf); change a copy: copy.deepcopy(...)")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = append = clear = extend = insert = pop = remove = reverse = sort = _refuse
    __setattr__ = _refuse

    def __getitem__(self, index):
        return list(self._items[index]) if isinstance(index, slice) else self._items[index]

    def __eq__(self, other):
        return list(self._items) == other

    def __add__(self, other):
        return list(self._items) + other

    def __mul__(self, count):
        return list(self._items) * count

    __rmul__ = __mul__

    def __repr__(self):
        return repr(list(self._items))

    def index(self, *args):
        return self._items.index(*args)

    def count(self, value):
        return self._items.count(value)

    def copy(self):
        return list(self._items)

    def __reduce__(self):
        return list, (list(self._items),)

    def __deepcopy__(self, memo):
        import copy

        return [copy.deepcopy(value, memo) for value in self._items]


def frozen_array(array):
    """A read-only copy of ``array`` that cannot be made writeable again: a view of immutable ``bytes``
    (``setflags(write=True)`` raises, as it does not on an array that owns its memory)."""
    if array.dtype.hasobject:
        array = array.copy()
        array.setflags(write=False)
        return array
    return np.frombuffer(array.tobytes(), dtype=array.dtype).reshape(array.shape)


def read_only(tree):
    """A read-only copy of ``tree``: arrays with ``writeable=False``, dicts and lists that refuse changes.

    >>> model = read_only({"w": np.zeros(2), "blocks": [{}]})
    >>> model["w"][0] = 1
    Traceback (most recent call last):
    ...
    ValueError: assignment destination is read-only
    """
    return tree_map(lambda leaf: frozen_array(leaf) if isinstance(leaf, np.ndarray) else leaf, tree,
                    into=(ReadOnlyDict, ReadOnlyList, tuple))
