"""What the tests of the playground's JavaScript port share: a model as the port takes it."""

import importlib.util
import json
import re

import numpy as np

from handtf.trees import tree_map

from pages import ROOT


def as_lists(model):
    """``model`` (a dict of arrays, as ``handtf.build_model`` makes it) as plain nested lists of floats, as JSON holds it."""
    return tree_map(lambda leaf: np.asarray(leaf, dtype=np.float64).tolist(), model)


def load_hook():
    """hooks/playground.py as a module: it writes the port's model files from the package."""
    spec = importlib.util.spec_from_file_location("playground_hook", ROOT / "hooks" / "playground.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_module(source):
    """``{NAME: value}`` for every ``export const NAME = JSON;`` line of a generated model module."""
    found = re.findall(r"^export const (\w+) = (.*);$", source, flags=re.MULTILINE)
    return {name: json.loads(value) for name, value in found}
