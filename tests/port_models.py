"""What the tests of the playground's JavaScript port share: a model as the port takes it."""

import numpy as np


def as_lists(model):
    """``model`` (a dict of arrays, as ``handtf.build_model`` makes it) as plain nested lists of floats, as JSON holds it."""
    if isinstance(model, dict):
        return {key: as_lists(value) for key, value in model.items()}
    if isinstance(model, list):
        return [as_lists(value) for value in model]
    return np.asarray(model, dtype=np.float64).tolist()
