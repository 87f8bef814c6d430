"""Every bad input in bad_inputs.CASES gets a ValueError or TypeError that says what is wrong (issue 11, item 4)."""

import warnings

import pytest

from bad_inputs import CASES


@pytest.mark.parametrize("label, call, error, message", CASES, ids=[case[0] for case in CASES])
def test_a_bad_input_gets_a_clear_error(label, call, error, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning on the way: the input is refused before any arithmetic
        with pytest.raises(error, match=message):
            call()


def test_the_catalogue_is_broad():
    assert len(CASES) >= 90
    assert len({label for label, *_ in CASES}) == len(CASES)
