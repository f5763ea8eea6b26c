"""One format for chips (and shares) per language, on every screen (core/numbers.py and its
template filters, core/templatetags/numbers.py): English ``10,000``, French and Russian
``10 000`` (a no-break space), a percentage in the language's decimal separator."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.template import Context, Template
from django.utils import translation

from core import numbers
from core.sentence import said
from tables.wording import say


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", ["10,000", "9,055", "-9,055", "+1,250", "0", "999", "1,234,567"]),
        ("fr", ["10\xa0000", "9\xa0055", "-9\xa0055", "+1\xa0250", "0", "999", "1\xa0234\xa0567"]),
        ("ru", ["10\xa0000", "9\xa0055", "-9\xa0055", "+1\xa0250", "0", "999", "1\xa0234\xa0567"]),
    ],
)
def test_chips_in_each_language(lang: str, expected: list[str]) -> None:
    with translation.override(lang):
        shown = [
            numbers.chips(10000),
            numbers.chips(9055),
            numbers.chips(-9055),
            numbers.signed_chips(1250),
            numbers.signed_chips(0),
            numbers.chips(999),
            numbers.chips(1234567),
        ]
    assert shown == expected


def test_a_chip_amount_is_whole_and_an_absent_one_is_empty() -> None:
    with translation.override("en"):
        assert numbers.chips(None) == "" and numbers.chips("") == "" and numbers.signed_chips(None) == ""
        assert numbers.chips(Fraction(9055, 1)) == "9,055"
        # an average stake: to the whole chip, half up (460 / 3 = 153.33…; 305 / 2 = 152.5)
        assert numbers.average_chips(Fraction(460, 3)) == "153"
        assert numbers.average_chips(Fraction(305, 2)) == "153"
        assert numbers.average_chips(Fraction(3001, 10)) == "300"  # never "300.1" nor "300.0"
        assert numbers.average_chips(Fraction(25001, 2)) == "12,501"
        assert numbers.average_chips(None) == "—"
    with pytest.raises(TypeError):
        numbers.chips(True)


@pytest.mark.parametrize(
    ("lang", "advice", "rate", "hold", "tick"),
    [
        ("en", "-19.97\xa0%", "33.3\xa0%", "4.286\xa0%", "1.25"),
        ("fr", "-19,97\xa0%", "33,3\xa0%", "4,286\xa0%", "1,25"),
        ("ru", "-19,97\xa0%", "33,3\xa0%", "4,286\xa0%", "1,25"),
    ],
)
def test_percentages_in_each_language(lang: str, advice: str, rate: str, hold: str, tick: str) -> None:
    with translation.override(lang):
        assert numbers.percent(Fraction(-1997, 10000), 2, signed=True) == advice
        assert numbers.percent(Fraction(1, 3), 1) == rate
        assert numbers.percent(Fraction(30, 700), 3) == hold
        assert numbers.figure(1.25) == tick
        assert numbers.percent(None) == "—"
    with translation.override("en"):
        assert numbers.percent(Fraction(1, 8), 2, signed=True) == "+12.50\xa0%"
        assert numbers.percent(Fraction(0), 2, signed=True) == "0.00\xa0%"  # no sign on nothing
        assert numbers.points(Fraction(1, 800), 3, signed=True) == "+0.125"
        assert numbers.percent(Fraction(125, 1), 0) == "12,500\xa0%"


@pytest.mark.parametrize(
    ("lang", "html"),
    [
        ("en", "10,000 | +1,250 | -300 | 153 | 33.3\xa0% | -19.97\xa0% | +0.125 | 5 | 77"),
        ("fr", "10\xa0000 | +1\xa0250 | -300 | 153 | 33,3\xa0% | -19,97\xa0% | +0,125 | 5 | 77"),
        ("ru", "10\xa0000 | +1\xa0250 | -300 | 153 | 33,3\xa0% | -19,97\xa0% | +0,125 | 5 | 77"),
    ],
)
def test_the_template_filters(lang: str, html: str) -> None:
    template = Template(
        "{% load numbers %}{{ bank|chips }} | {{ gain|signed_chips }} | {{ loss|signed_chips }} | "
        "{{ average|average_chips }} | {{ rate|percent:1 }} | {{ ev|signed_percent }} | "
        "{{ difference|signed_points:3 }} | {{ seat }} | {{ id }}"
    )
    context = Context(
        {
            "bank": 10000,
            "gain": 1250,
            "loss": -300,
            "average": Fraction(460, 3),
            "rate": Fraction(1, 3),
            "ev": Fraction(-1997, 10000),
            "difference": Fraction(1, 800),
            "seat": 5,  # what is not chips stays as it is
            "id": 77,
        }
    )
    with translation.override(lang):
        assert template.render(context) == html


def test_a_sentence_says_its_numbers_as_the_page_writes_chips() -> None:
    """A refusal or a step built from values (core.sentence.said) stays English with plain
    digits as sent and stored; said on a screen (tables.wording.say) its numbers are grouped."""
    refused = said("only {left} of the bank is left to cover", left=12500)
    assert refused == "only 12500 of the bank is left to cover"  # the API's, the audit trail's
    with translation.override("en"):
        assert say(refused, translation.gettext) == "only 12,500 of the bank is left to cover"
        assert say(said("seat {seat}", seat=7), translation.gettext) == "seat 7"
        # a value shown with !r keeps no quotes once grouped
        odd = said("amount must be a positive whole number of chips, not {value!r}", value=-1500)
        assert say(odd, translation.gettext) == "amount must be a positive whole number of chips, not -1,500"
    with translation.override("fr"):
        assert say(refused, translation.gettext) == "il ne reste que 12\xa0500 de la banque à couvrir"


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", ["6.88", "1,234.50", "0.00", "—", "2.12"]),
        ("fr", ["6,88", "1\xa0234,50", "0,00", "—", "2,12"]),
        ("ru", ["6,88", "1\xa0234,50", "0,00", "—", "2,12"]),
    ],
)
def test_an_expectation_in_chips_to_the_hundredth(lang: str, expected: list[str]) -> None:
    with translation.override(lang):
        shown = [
            numbers.exact_chips(Fraction(2099356568280, 305162919061)),  # 6.8795…
            numbers.exact_chips(Fraction(2469, 2)),
            numbers.exact_chips(0),
            numbers.exact_chips(None),
            numbers.exact_chips(Fraction(2125, 1000)),  # half-even: 2.125 → 2.12
        ]
    assert shown == expected
