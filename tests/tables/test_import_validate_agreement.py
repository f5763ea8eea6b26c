"""import_coups and validate_coups agree on every record (COUP_RECORD.md: "the offline judge must
flag everything the live table refuses that a record can express").

The same line is judged offline (``validate_lines``, what ``manage.py validate_coups`` runs) and
imported into a table (``manage.py import_coups``): either both refuse it with the same sentence,
or the import gives exactly the offline verdict, writes the coup in the state that verdict implies
(docs/table-workflow.md: clean → settled; a game violation restored from the record's cards →
awaiting approval; otherwise awaiting correction) and posts each punter's money as the verdict
settles it.
"""

from __future__ import annotations

import io
import itertools
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from audit.models import AuditEvent
from chemin_de_fer.engine.validator import validate_lines
from ledger.models import Entry, Transaction
from tables.games import offline_judges
from tables.models import Coup, CoupStep, Player, Seat

pytestmark = pytest.mark.django_db

ACTIONS = ("natural", "draw", "stand", "none")
#: (player's two cards, his third), (banker's two cards, his third): a natural on one side or both
HANDS = {
    "pnat": ((["4H", "4C"], "7C"), (["AS", "2D"], "6S")),
    "bnat": ((["2H", "3C"], "7C"), (["4S", "5D"], "6S")),
    "both": ((["4H", "4C"], "7C"), (["4S", "5D"], "6S")),
}


def shape(name: str, pa: str, p3: bool, ba: str, b3: bool) -> dict[str, Any]:
    (player, third_p), (banker, third_b) = HANDS[name]
    return {
        "id": f"{name}-{pa}{'3' if p3 else ''}-{ba}{'3' if b3 else ''}",
        "profile": "casino",
        "bank": 100,
        "bets": [{"punter": "seat-1", "amount": 100}],
        "player": {"cards": player + ([third_p] if p3 else []), "action": pa},
        "banker": {"cards": banker + ([third_b] if b3 else []), "action": ba},
        "shoe_next": ["9C", "9D"],
    }


#: {player natural, banker natural, both} x 4 actions a side x a third card or not: 192 shapes
SHAPES = [
    shape(name, pa, p3, ba, b3)
    for name in HANDS
    for pa, p3, ba, b3 in itertools.product(ACTIONS, (False, True), ACTIONS, (False, True))
]


def validated(record: dict[str, Any]) -> dict[str, Any]:
    out = io.BytesIO()
    validate_lines([json.dumps(record).encode()], out, others=offline_judges())
    return json.loads(out.getvalue())


def imported(record: dict[str, Any], table, croupier, tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(record) + "\n")
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(
            "import_coups", str(path), table=table.pk, croupier=croupier.username, buy_in=1000,
            stdout=out, stderr=err,
        )  # fmt: skip
    except SystemExit as exc:
        assert exc.code == 1
    (line,) = [json.loads(x) for x in out.getvalue().splitlines()]
    return line


def expected_state(verdict: dict[str, Any]) -> str:
    """The state docs/table-workflow.md gives an imported coup of this verdict. (A record naming
    the wrong active punter is replayed as a table plays it, naming the active punter itself:
    WRONG_ACTIVE_PUNTER alone holds nothing up, the money being the same — docs/coup-record.md.)"""
    if all(v["code"] == "WRONG_ACTIVE_PUNTER" for v in verdict["violations"]):
        return "settled"
    restored = verdict["restored"]
    if restored is not None and "needs_cards" not in restored and verdict["settlement"] is not None:
        return "awaiting_approval"  # restored with the record's cards, the correction awaiting a pit boss
    return "awaiting_correction"


def punters_posted(coup: Coup) -> dict[str, int]:
    """Each punter's net on the ledger for the coup (provisional postings included), by the name
    the record gave him; zero nets left out."""
    net: dict[str, int] = defaultdict(int)
    entries = Entry.objects.filter(transaction__coup=coup, account__kind="player").select_related(
        "account__player"
    )
    for entry in entries:
        player = entry.account.player
        assert player is not None
        number = player.membership_number
        if number.startswith("IMP-"):
            net[number.removeprefix("IMP-")] += entry.amount
    return {k: v for k, v in net.items() if v}


def assert_agree(record: dict[str, Any], table, croupier, tmp_path: Path) -> dict[str, Any]:
    """``record`` imported and validated: the same refusal, or the same verdict, state and money.
    The import's line."""
    offline = validated(record)
    rows = (Coup.objects.count(), CoupStep.objects.count(), Transaction.objects.count())
    events = AuditEvent.objects.count()
    line = imported(record, table, croupier, tmp_path)
    if "error" in offline:
        assert line == {"line": 1, **offline}  # the same sentence, the id as the line wrote it
        # a refused line writes nothing
        assert (Coup.objects.count(), CoupStep.objects.count(), Transaction.objects.count()) == rows
        assert AuditEvent.objects.count() == events
        return line
    assert "error" not in line, line
    got = {k: v for k, v in line.items() if k not in ("line", "coup", "state")}
    assert got == offline
    assert line["state"] == expected_state(offline)
    coup = Coup.objects.get(pk=line["coup"])
    settlement = offline["settlement"]
    want = {} if settlement is None else {p: v for p, v in settlement["punters"].items() if v}
    if line["state"] == "awaiting_correction":
        want = {}  # nothing posted until a correction is submitted
    assert punters_posted(coup) == want
    return line


@pytest.mark.parametrize("record", SHAPES, ids=[r["id"] for r in SHAPES])
def test_every_natural_shape_imports_as_it_validates(record, croupier, table, tmp_path) -> None:
    assert_agree(record, table, croupier, tmp_path)


def test_the_reviewers_three_examples(croupier, table, tmp_path) -> None:
    """The shapes the import refused although validate_coups judged them."""
    by_id = {r["id"]: r for r in SHAPES}
    # the banker drew a card after the player's natural: CARD_AFTER_NATURAL, restored
    line = assert_agree(by_id["pnat-natural-draw3"], table, croupier, tmp_path)
    assert [v["code"] for v in line["violations"]] == ["CARD_AFTER_NATURAL"]
    assert line["state"] == "awaiting_approval"
    assert line["restored"]["void_cards"] == ["6S"]
    # the banker's natural recorded as a stand: NATURAL_NOT_SHOWN
    line = assert_agree(by_id["bnat-none-stand"], table, croupier, tmp_path)
    assert [(v["code"], v["side"]) for v in line["violations"]] == [("NATURAL_NOT_SHOWN", "banker")]
    # the player never showed his natural ("none"): a live table refuses to go on without his
    # word, so the judge flags it now; the outcome stays the player's
    line = assert_agree(by_id["pnat-none-none"], table, croupier, tmp_path)
    assert [(v["code"], v["side"]) for v in line["violations"]] == [("NATURAL_NOT_SHOWN", "player")]
    assert (line["outcome"], line["restored"]["outcome"]) == ("player", "player")
    assert line["settlement"]["punters"] == {"seat-1": 100}


# ---------------------------------------------------------------------- the other defects
def base(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": "x",
        "profile": "casino",
        "bank": 100,
        "bets": [{"punter": "seat-1", "amount": 60}, {"punter": "seat-2", "amount": 40}],
        "player": {"cards": ["2H", "3C", "9H"], "action": "draw"},
        "banker": {"cards": ["AS", "2D", "5S"], "action": "draw"},
    }
    record.update(changes)
    return record


CLUB_STAND_ON_5 = {
    "profile": "club",
    "player": {"cards": ["2H", "3C"], "action": "stand"},
    "banker": {"cards": ["AS", "6D"], "action": "stand"},
}


@pytest.mark.parametrize("named", [None, "seat-1", "seat-2", "seat-9"])
def test_the_club_reimbursement_is_the_active_punters_in_the_verdict_and_the_ledger(
    named, croupier, club_table, tmp_path
) -> None:
    """RULES.md §6: the active punter (§2: the largest seated bet, seat-1) answers for the others'
    stakes when he stands on his option and loses; a record naming another is WRONG_ACTIVE_PUNTER,
    procedural, and settled as if it named the right one — in the verdict and on the ledger."""
    record = base(**CLUB_STAND_ON_5, **({"active_punter": named} if named else {}))
    line = assert_agree(record, club_table, croupier, tmp_path)
    assert line["settlement"]["punters"] == {"seat-1": -100, "seat-2": 0}
    codes = [v["code"] for v in line["violations"]]
    assert codes == ([] if named in (None, "seat-1") else ["WRONG_ACTIVE_PUNTER"])
    assert line["state"] == "settled"
    if codes:
        assert line["violations"][0]["detail"] == f"seat-1 plays, not {named}"


SEATED = {"punter": "seat-1", "amount": 60}
STANDING = {"punter": "seat-1", "amount": 40, "spectator": True}


@pytest.mark.parametrize(
    ("profile", "bets"), [("classic", [SEATED, STANDING]), ("casino", [STANDING, SEATED])]
)
def test_a_punter_seated_and_standing_in_one_record_is_refused_by_both(
    profile, bets, croupier, table, tmp_path
) -> None:
    line = assert_agree(base(profile=profile, bets=bets), table, croupier, tmp_path)
    assert line == {
        "line": 1,
        "id": "x",
        "error": "bet 2: 'seat-1' bets both from a seat and as a spectator; a punter is one or the other",
    }


def test_a_null_game_is_refused_by_both(croupier, table, tmp_path) -> None:
    line = assert_agree(base(game=None), table, croupier, tmp_path)
    assert line["error"].startswith("unknown game null; known: chemin-de-fer, ")


def test_an_unknown_game_is_refused_by_both_with_the_same_sentence(croupier, table, tmp_path) -> None:
    line = assert_agree(base(game="baccarat"), table, croupier, tmp_path)
    assert line["error"].startswith("unknown game 'baccarat'; known: chemin-de-fer, ")


def test_a_punter_named_banker_is_a_punter_not_the_importers_banker(croupier, table, tmp_path) -> None:
    record = base(bets=[{"punter": "banker", "amount": 60}])
    line = assert_agree(record, table, croupier, tmp_path)
    assert line["state"] == "settled"
    assert line["settlement"]["punters"] == {"banker": -60}
    punter = Player.objects.get(membership_number="IMP-banker")
    banker = Player.objects.get(membership_number="IMP:banker")
    seated = set(Seat.objects.filter(left_at__isnull=True).values_list("player_id", flat=True))
    assert {punter.pk, banker.pk} <= seated


def test_a_home_banco_suivi_on_its_own_imports_as_it_validates(croupier, home_table, tmp_path) -> None:
    """A record is judged on its own: its suivi claim is carried as recorded, not checked against
    whatever coup the table played before (validate_coups cannot see that coup either)."""
    record = base(
        profile="home",
        banco=True,
        banco_suivi=True,
        bets=[{"punter": "seat-1", "amount": 100}],
        player={"cards": ["2H", "3C", "9H"], "action": "draw"},
        banker={"cards": ["AS", "2D", "5S"], "action": "draw"},
    )
    line = assert_agree(record, home_table, croupier, tmp_path)
    assert (line["state"], line["violations"]) == ("settled", [])
    coup = Coup.objects.get(pk=line["coup"])
    banco = coup.steps.get(kind="banco")
    assert [c["suivi"] for c in banco.payload["callers"]] == [True]


def test_more_seated_punters_than_the_profile_seats_is_refused_by_both(croupier, table, tmp_path) -> None:
    record = base(bets=[{"punter": f"p{i}", "amount": 1} for i in range(20)])
    line = assert_agree(record, table, croupier, tmp_path)
    assert line == {
        "line": 1,
        "id": "x",
        "error": "20 seated punters and the banker need 21 seats; the casino profile seats at most 12",
    }
    assert not Player.objects.filter(membership_number__startswith="IMP-").exists()


def test_eleven_seated_punters_and_the_banker_fit_a_casino_table(croupier, table, tmp_path) -> None:
    record = base(bets=[{"punter": f"p{i}", "amount": 1} for i in range(11)])
    line = assert_agree(record, table, croupier, tmp_path)
    assert line["state"] == "settled"


@pytest.mark.parametrize("value", [False, 0, "", {}])
def test_a_shoe_next_that_is_no_list_is_refused_by_both(value, croupier, table, tmp_path) -> None:
    line = assert_agree(base(shoe_next=value), table, croupier, tmp_path)
    assert line["error"] == f"shoe_next must be a list of cards, not {json.dumps(value)}"


def test_every_natural_shape_in_one_history_imports_as_it_validates(croupier, table, tmp_path) -> None:
    """The same 192 lines as one file: after the first record (the services open the session and
    the shoe) the batched writer plays them, and agrees with validate_coups as the services do."""
    path = tmp_path / "all.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in SHAPES))
    out = io.StringIO()
    with pytest.raises(SystemExit):  # the malformed shapes are refused: exit status 1
        call_command(
            "import_coups", str(path), table=table.pk, croupier=croupier.username, buy_in=100_000,
            stdout=out, stderr=io.StringIO(),
        )  # fmt: skip
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert len(lines) == 192
    imported_lines = 0
    for number, (record, line) in enumerate(zip(SHAPES, lines, strict=True), 1):
        offline = validated(record)
        if "error" in offline:
            assert line == {"line": number, **offline}
            continue
        imported_lines += 1
        assert {k: v for k, v in line.items() if k not in ("line", "coup", "state")} == offline
        assert line["state"] == expected_state(offline), record["id"]
        want = {p: v for p, v in (offline["settlement"] or {"punters": {}})["punters"].items() if v}
        posted = punters_posted(Coup.objects.get(pk=line["coup"]))
        assert posted == ({} if line["state"] == "awaiting_correction" else want), record["id"]
    assert imported_lines == 65


# ------------------------------------------------- amounts beyond the records' limit, nulls
LIMIT = 10**12  # core.records.MAX_RECORD_CHIPS: every game's readers refuse more, import and judge alike
BEYOND_IDS = "bank-2**63 bank-2**64-1 bank-10**20 bet-limit+1 limit-2**64 unit-2**63"
NULL_IDS = "null-limit null-unit null-active"


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"bank": 2**63}, f"bank must be a positive integer of at most 1,000,000,000,000 chips, not {2**63}"),
        (
            {"bank": 2**64 - 1, "bets": [{"punter": "seat-1", "amount": 2**64 - 1}]},
            f"bank must be a positive integer of at most 1,000,000,000,000 chips, not {2**64 - 1}",
        ),
        (
            {"bank": 10**20},  # beyond 64 bits: orjson alone read it as 1e+20
            "bank must be a positive integer of at most 1,000,000,000,000 chips, not 100000000000000000000",
        ),
        (
            {"bets": [{"punter": "seat-1", "amount": 60}, {"punter": "seat-2", "amount": LIMIT + 1}]},
            "bet 2: amount must be a positive integer of at most 1,000,000,000,000 chips, not 1000000000001",
        ),
        (
            {"house_limit": 2**64},
            "house_limit must be a positive integer of at most 1,000,000,000,000 chips, "
            "not 18446744073709551616",
        ),
        (
            {"chip_unit": 2**63},
            f"chip_unit must be a positive integer of at most 1,000,000,000,000 chips, not {2**63}",
        ),
        ({"house_limit": None}, "house_limit must be a positive integer, not null"),
        ({"chip_unit": None}, "chip_unit must be a positive integer, not null"),
        ({"active_punter": None}, "active_punter must be a punter's name"),
    ],
    ids=[*BEYOND_IDS.split(), *NULL_IDS.split()],
)
def test_an_amount_beyond_the_limit_or_a_null_is_refused_by_both_with_one_sentence(
    changes, error, croupier, table, tmp_path
) -> None:
    line = assert_agree(base(**changes), table, croupier, tmp_path)
    assert line == {"line": 1, "id": "x", "error": error}


def test_amounts_at_the_limit_import_as_they_validate(croupier, table, tmp_path) -> None:
    record = base(bank=LIMIT, bets=[{"punter": "seat-1", "amount": LIMIT}], house_limit=LIMIT)
    line = assert_agree(record, table, croupier, tmp_path)
    assert (line["state"], line["settlement"]["punters"]) == ("settled", {"seat-1": -LIMIT})


def test_an_id_beyond_64_bits_imports_as_it_validates_with_its_id_exact(croupier, table, tmp_path) -> None:
    """orjson reads 100000000000000000000 as 1e+20 and writes no integer beyond 64 bits: the line
    is read exactly (core.records.record_loads), and its verdict written with the id it gave."""
    line = assert_agree(base(id=10**20), table, croupier, tmp_path)
    assert (line["id"], line["state"]) == (10**20, "settled")
