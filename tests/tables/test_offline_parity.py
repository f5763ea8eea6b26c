"""Offline parity (issue 9 §4): what a live table refuses, the offline judge flags on the same record.

For each profile a spectator's bet, a spectator's banco, a bank of one chip, a bank above the house
limit, a banco suivi and a spectator's bet before a seated punter's are tried through the services
a croupier's tablet calls; the same coup, written as a coup record, is judged by ``judge_coup``
(what ``manage.py validate_coups`` runs). The service refuses it — with nothing written — exactly
when the judge flags SPECTATOR_BET_NOT_ALLOWED, BANK_BELOW_MINIMUM, BANK_ABOVE_LIMIT,
SUIVI_NOT_ALLOWED or SPECTATOR_BEFORE_SEATED (COUP_RECORD.md, Verdict; RULES.md §2, §3.1 and §10).
A coup the table accepts is played to the end, and its live verdict is the judge's verdict on the
record. An imported history holding them is imported flagged, not refused.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.utils import timezone

from chemin_de_fer.engine.coup import Action, Code, CoupRecord, Hand, Stake
from chemin_de_fer.engine.interchange import record_from_dict, record_to_dict, verdict_to_dict
from chemin_de_fer.engine.judge import Rules, judge_coup
from chemin_de_fer.engine.machine import Move
from chemin_de_fer.engine.profiles import BUILTIN
from chemin_de_fer.engine.punters import seat_key, spectator_key
from chemin_de_fer.engine.validator import validate_lines
from reports.builders.coup_records import coup_record_dicts
from tables import services
from tables.gaming_day import Period
from tables.models import Casino, Coup
from tables.services import Caller
from tests.tables.play import Floor, held_bank_turn, open_floor, play, row_counts, step

pytestmark = pytest.mark.django_db

PROFILES = sorted(BUILTIN)
#: P1 B1 P2 B2: the player stands on 7, the banker stands on 6 — a clean coup the player wins
CARDS = ("4C", "KS", "3D", "6H")


@pytest.fixture
def tables(table, classic_table, club_table, home_table):
    by_slug = {t.profile.slug: t for t in (table, classic_table, club_table, home_table)}
    assert sorted(by_slug) == PROFILES
    return by_slug


def judged(profile: str, *, bank: int, bets: tuple[Stake, ...], banco: bool = False, **record: Any):
    """The judge's verdict on the coup the test plays, as a coup record (``record``: its other
    fields, e.g. ``house_limit``, ``banco_suivi``)."""
    coup = CoupRecord(
        id=None,
        profile=profile,
        bank=bank,
        bets=bets,
        player=Hand((CARDS[0], CARDS[2]), Action.STAND),
        banker=Hand((CARDS[1], CARDS[3]), Action.STAND),
        banco=banco,
        **{"first_coup_of_bank": True, **record},
    )
    return judge_coup(coup, Rules.for_profile(BUILTIN[profile]))


def finish(floor: Floor, coup: Coup) -> dict:
    """Close the bets and play the clean coup to its reveal; the verdict stored at the reveal."""
    step(floor, coup, Move.BETS_CLOSED)
    deal = (Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER, Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER)
    for kind, card in zip(deal, CARDS, strict=True):
        step(floor, coup, kind, card=card)
    step(floor, coup, Move.PLAYER_STAND)
    step(floor, coup, Move.BANKER_STAND)
    reveal = step(floor, coup, Move.REVEAL)
    return reveal.step.payload["verdict"]


def live_equals_judged(live: dict, verdict) -> None:
    assert {**live, "id": None} == verdict_to_dict(verdict)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("banco", [False, True], ids=["bet", "banco"])
def test_a_spectators_bet_is_refused_live_exactly_when_the_judge_flags_it(
    croupier, tables, profile, banco
) -> None:
    """RULES.md §2 and §10 (who may bet, a spectator's banco); COUP_RECORD.md:
    SPECTATOR_BET_NOT_ALLOWED. The banker sits alone, so no seated punter's turn comes first."""
    floor = open_floor(croupier, tables[profile], seats=(1,), spectators=1)
    spectator = floor.spectators[0]
    key = spectator_key(spectator.pk)
    amount = 100 if banco else 20
    verdict = judged(profile, bank=100, bets=(Stake(key, amount, spectator=True),), banco=banco)
    flagged = [v.code for v in verdict.violations]
    assert flagged in ([], [Code.SPECTATOR_BET_NOT_ALLOWED])

    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    before = row_counts()
    try:
        if banco:
            step(floor, coup, Move.BANCO, callers=(Caller(spectator=spectator.pk),))
        else:
            # a record cannot say the banker consented (the club asks for it, RULES.md §2): the
            # live bet carries it, so only the profile's ban on spectators' bets is compared
            step(floor, coup, Move.BET, spectator=spectator.pk, amount=amount, consent=True)
    except ValidationError as exc:
        assert flagged == [Code.SPECTATOR_BET_NOT_ALLOWED], exc
        assert "spectator" in str(exc)
        assert row_counts() == before  # refused before any write
        return
    assert flagged == []
    live_equals_judged(finish(floor, coup), verdict)


@pytest.mark.parametrize("profile", PROFILES)
def test_a_bank_of_one_chip_is_refused_live_exactly_when_the_judge_flags_it(
    croupier, tables, profile
) -> None:
    """RULES.md §3.1 (the bank is at least the profile's minimum) and §10 (home: 2); COUP_RECORD.md:
    BANK_BELOW_MINIMUM."""
    floor = open_floor(croupier, tables[profile], seats=(1, 2))
    verdict = judged(profile, bank=1, bets=(Stake(seat_key(2), 1),))
    flagged = [v.code for v in verdict.violations]
    assert flagged in ([], [Code.BANK_BELOW_MINIMUM])

    before = row_counts()
    try:
        coup = services.coup_start(actor=croupier, session=floor.session, amount=1).coup
    except ValidationError as exc:
        assert flagged == [Code.BANK_BELOW_MINIMUM], exc
        assert exc.message_dict == {"amount": [f"the bank must be at least {BUILTIN[profile].min_bank}"]}
        assert row_counts() == before
        return
    assert flagged == []
    step(floor, coup, Move.BET, seat=2, amount=1)
    live_equals_judged(finish(floor, coup), verdict)


@pytest.mark.parametrize("bank", [500, 501], ids=["at-the-limit", "one-above"])
def test_a_bank_above_the_house_limit_is_refused_live_exactly_when_the_judge_flags_it(
    croupier, table, bank
) -> None:
    """RULES.md §3.1 (a bank up to the house limit); COUP_RECORD.md: BANK_ABOVE_LIMIT. The casino's
    house limit is the live coup's, and its record's ``house_limit``."""
    Casino.objects.filter(pk=table.casino_id).update(house_limit=500)
    floor = open_floor(croupier, table, seats=(1, 2))
    verdict = judged("casino", bank=bank, bets=(Stake(seat_key(2), 100),), house_limit=500)
    flagged = [v.code for v in verdict.violations]
    assert flagged == ([Code.BANK_ABOVE_LIMIT] if bank > 500 else [])

    before = row_counts()
    try:
        coup = services.coup_start(actor=croupier, session=floor.session, amount=bank).coup
    except ValidationError as exc:
        assert flagged == [Code.BANK_ABOVE_LIMIT], exc
        assert exc.message_dict == {"amount": ["the bank may not exceed the house limit of 500"]}
        assert row_counts() == before
        return
    assert flagged == []
    step(floor, coup, Move.BET, seat=2, amount=100)
    live_equals_judged(finish(floor, coup), verdict)


@pytest.mark.parametrize("profile", PROFILES)
def test_a_banco_suivi_is_refused_live_exactly_when_the_judge_flags_it(croupier, tables, profile) -> None:
    """RULES.md §2 (home: the banco suivi of the punter who lost a banco on the previous coup);
    COUP_RECORD.md: SUIVI_NOT_ALLOWED. Seat 3 loses a banco first, so the profile alone decides."""
    floor = open_floor(croupier, tables[profile], seats=(1, 2, 3))
    # P1 B1 P2 B2: the player stands on 6, the banker on 7 — a clean coup the banker wins
    lost = play(
        floor,
        bank=10,
        banco=(Caller(seat=3),),
        cards=("KS", "4C", "6H", "3D"),
        player="stand",
        banker="stand",
    )
    assert lost.state == "settled"
    bank = held_bank_turn(floor).required_minimum
    verdict = judged(
        profile,
        bank=bank,
        bets=(Stake(seat_key(3), bank),),
        banco=True,
        banco_suivi=True,
        first_coup_of_bank=False,
    )
    flagged = [v.code for v in verdict.violations]
    assert flagged == ([] if BUILTIN[profile].banco_suivi else [Code.SUIVI_NOT_ALLOWED])

    coup = services.coup_start(actor=croupier, session=floor.session, amount=bank).coup
    before = row_counts()
    try:
        step(floor, coup, Move.BANCO, callers=(Caller(seat=3, suivi=True),))
    except ValidationError as exc:
        assert flagged == [Code.SUIVI_NOT_ALLOWED], exc
        assert exc.messages == [f"the {profile} profile has no banco suivi"]
        assert row_counts() == before
        return
    assert flagged == []
    live_equals_judged(finish(floor, coup), verdict)


@pytest.mark.parametrize("profile", ["casino", "club"])  # where spectators bet (RULES.md §10)
@pytest.mark.parametrize("spectator_first", [True, False], ids=["spectator-first", "seated-first"])
def test_a_spectators_bet_before_the_seated_round_is_refused_live_exactly_when_the_judge_flags_it(
    croupier, tables, profile, spectator_first
) -> None:
    """RULES.md §2 (spectators bet on what is left once every seated punter has had a turn);
    COUP_RECORD.md: SPECTATOR_BEFORE_SEATED. Seat 2 is the one seated punter to bet."""
    floor = open_floor(croupier, tables[profile], seats=(1, 2), spectators=1)
    spectator = floor.spectators[0]
    seated, standing = Stake(seat_key(2), 30), Stake(spectator_key(spectator.pk), 20, spectator=True)
    verdict = judged(profile, bank=100, bets=(standing, seated) if spectator_first else (seated, standing))
    flagged = [v.code for v in verdict.violations]
    assert flagged == ([Code.SPECTATOR_BEFORE_SEATED] if spectator_first else [])

    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    bets: list[dict[str, Any]] = [
        {"seat": 2, "amount": 30},
        {"spectator": spectator.pk, "amount": 20, "consent": True},  # the club asks the banker's consent
    ]
    if spectator_first:
        before = row_counts()
        with pytest.raises(ValidationError) as refused:
            step(floor, coup, Move.BET, **bets[1])
        assert flagged == [Code.SPECTATOR_BEFORE_SEATED]
        assert refused.value.message_dict == {
            "spectator": [
                "Spectators bet only on what is left once every seated punter has had a turn: "
                "seat 2 to go (or say the seated round is over)."
            ]
        }
        assert row_counts() == before
        return
    for bet in bets:
        step(floor, coup, Move.BET, **bet)
    live_equals_judged(finish(floor, coup), verdict)


# ------------------------------------------------------------------ import and export
DATA = Path(__file__).resolve().parents[1] / "data"
SPECTATOR_KEY = re.compile(r"spectator-\d+")


def import_file(path: Path, table, croupier) -> tuple[list[dict], int]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(
            "import_coups", str(path), table=table.pk, croupier=croupier.username, buy_in=1000,
            stdout=out, stderr=err,
        )  # fmt: skip
        code = 0
    except SystemExit as exc:
        assert isinstance(exc.code, int)
        code = exc.code
    return [json.loads(x) for x in out.getvalue().splitlines()], code


def exported(table) -> list[dict]:
    today = timezone.localdate()
    return list(coup_record_dicts(period=Period(today, today), table=table))


def canonical(line: str) -> dict:
    """A record as the format writes it, without its id (an export names coups its own way)."""
    return {**record_to_dict(record_from_dict(json.loads(line), known_profiles=BUILTIN)), "id": None}


def spectators_renamed(value: Any) -> Any:
    """``value`` with each spectator's key (``spectator-ID``) renamed by order of first
    appearance: an import stands each named spectator at the table, and the export knows him by
    his id there; who is who stays the same."""
    names: dict[str, str] = {}

    def rename(text: str) -> str:
        if not SPECTATOR_KEY.fullmatch(text):
            return text
        return names.setdefault(text, f"spectator-#{len(names) + 1}")

    def walk(v: Any) -> Any:
        if isinstance(v, dict):
            return {rename(k): walk(x) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return rename(v) if isinstance(v, str) else v

    return walk(value)


def test_the_parity_examples_import_with_exactly_their_verdicts(croupier, pit_boss, table) -> None:
    """COUP_RECORD.md: an imported history is held to the live table's rules — a forbidden
    spectator's bet or banco and a bank under the minimum (RULES.md §2, §3.1, §10) are recorded
    flagged, not refused, and wait for the pit boss; the import's verdicts are validate_coups'."""
    lines, code = import_file(DATA / "coups_parity.jsonl", table, croupier)
    expected = [json.loads(x) for x in (DATA / "verdicts_parity.jsonl").read_text().splitlines()]
    assert code == 1
    for got, want in zip(lines, expected, strict=True):
        if "error" in want:
            assert got == {"line": 9, **want}  # the sentence, and the id where the line has one
            continue
        assert {k: v for k, v in got.items() if k not in ("line", "coup", "state")} == want
    states = {line["id"]: line["state"] for line in lines if "state" in line}
    assert states == {
        "classic-spectator-bet": "awaiting_correction",
        "home-spectator-bet": "awaiting_correction",
        "club-spectator-banco": "awaiting_correction",
        "casino-spectator-banco": "settled",
        "home-bank-below-minimum": "awaiting_correction",
        "home-low-bank-spectator-and-a-wrong-stand": "awaiting_approval",
        "home-banco-lost": "settled",
        "home-banco-suivi": "settled",
    }
    low = Coup.objects.get(pk=next(x["coup"] for x in lines if x.get("id") == "home-bank-below-minimum"))
    first = low.steps.get(index=1)
    assert (low.flagged, first.kind, first.violations) == (True, "bank_declared", ["BANK_BELOW_MINIMUM"])
    suivi = Coup.objects.get(pk=next(x["coup"] for x in lines if x.get("id") == "home-banco-suivi"))
    assert suivi.bets.get(withdrawn=False).banco_suivi

    # a procedural code alone: restored as played, settled as recorded once a pit boss approves
    services.correction_submit(actor=croupier, coup=low, cards=[])
    services.correction_approve(actor=pit_boss, coup=low)
    low.refresh_from_db()
    correction = low.steps.get(kind="correction")
    want = next(v for v in expected if v.get("id") == "home-bank-below-minimum")
    assert low.state == "settled"
    assert correction.payload["settlement"] == want["settlement"]


def test_import_then_export_gives_back_the_same_records_banco_suivi_included(croupier, table) -> None:
    """COUP_RECORD.md: ``banco_suivi`` is carried through import and export unchanged (RULES.md
    §2: the home profile's banco suivi), and so is every flagged record: record → import →
    export is the identity (the ids aside)."""
    lines = [
        line
        for line in (DATA / "coups_parity.jsonl").read_text().splitlines()
        if json.loads(line)["id"] != "suivi-without-banco"
    ]
    _, code = import_file(DATA / "coups_parity.jsonl", table, croupier)
    assert code == 1  # the malformed line only
    back = exported(table)
    assert spectators_renamed([{**r, "id": None} for r in back]) == spectators_renamed(
        [canonical(line) for line in lines]
    )
    assert [r.get("banco_suivi", False) for r in back] == [False] * 7 + [True]
    # and the offline judge reads the export as it read the original
    out = io.BytesIO()
    validate_lines([orjson.dumps(r) for r in back], out)
    want = [json.loads(x) for x in (DATA / "verdicts_parity.jsonl").read_text().splitlines()[:8]]
    got = [json.loads(x) for x in out.getvalue().splitlines()]
    assert spectators_renamed([{**v, "id": None} for v in got]) == spectators_renamed(
        [{**v, "id": None} for v in want]
    )


def test_a_banco_suivi_played_live_is_exported_as_such(croupier, home_table) -> None:
    """RULES.md §2 (home: a losing banco caller's suivi comes first); COUP_RECORD.md: the live
    table's banco suivi (the caller's ``suivi`` in the banco step) is the export's ``banco_suivi``."""
    floor = open_floor(croupier, home_table, seats=(1, 2, 3))
    banco = (Caller(seat=3),)
    lost = play(floor, bank=10, banco=banco, cards=("AC", "7D", "2C", "KH"), player="stand", banker="stand")
    assert lost.state == "settled"
    suivi = (Caller(seat=3, suivi=True), Caller(seat=2))
    won = play(floor, bank=20, banco=suivi, cards=("9C", "4S", "TD", "2H"), player="natural")
    assert won.state == "settled"
    records = exported(home_table)
    assert [(r["banco"], r.get("banco_suivi")) for r in records] == [(True, None), (True, True)]
    assert records[1]["bets"] == [{"punter": "seat-3", "amount": 20}]


#: the spec's examples of the three procedural codes a live table refuses (COUP_RECORD.md)
PROCEDURAL_IDS = ("X-limit", "X-suivi", "X-spectator-first")


def test_the_procedural_examples_import_flagged_with_exactly_their_verdicts(
    croupier, pit_boss, table, tmp_path
) -> None:
    """COUP_RECORD.md: a bank above the record's house limit, a banco suivi the profile lacks and
    a spectator's bet listed before a seated punter's are what a live table refuses; an imported
    history holding them is imported flagged (the import's verdict is validate_coups'), not
    refused, and waits for the pit boss, who settles it as recorded (RULES.md §9: nothing to
    restore). Export gives back the same records, and validate_coups reads them as before."""
    wanted = [
        line
        for line in (DATA / "coups.jsonl").read_text().splitlines()
        if json.loads(line)["id"] in PROCEDURAL_IDS
    ]
    expected = {
        v["id"]: v
        for v in map(json.loads, (DATA / "verdicts.jsonl").read_text().splitlines())
        if v["id"] in PROCEDURAL_IDS
    }
    assert len(wanted) == len(expected) == 3
    path = tmp_path / "procedural.jsonl"
    path.write_text("\n".join(wanted) + "\n")
    lines, code = import_file(path, table, croupier)
    assert code == 0  # nothing refused
    assert [x["id"] for x in lines] == list(PROCEDURAL_IDS)
    for got in lines:
        assert {k: v for k, v in got.items() if k not in ("line", "coup", "state")} == expected[got["id"]]
        assert got["state"] == "awaiting_correction"
    coups = {x["id"]: Coup.objects.get(pk=x["coup"]) for x in lines}
    flagged_steps = {
        rid: [(s.kind, s.violations) for s in coup.steps.order_by("index") if s.violations]
        for rid, coup in coups.items()
    }
    assert flagged_steps == {
        "X-limit": [("bank_declared", ["BANK_ABOVE_LIMIT"])],
        "X-suivi": [("banco", ["SUIVI_NOT_ALLOWED"])],
        "X-spectator-first": [("bet", ["SPECTATOR_BEFORE_SEATED"])],
    }
    assert all(coup.flagged for coup in coups.values())
    assert coups["X-suivi"].bets.get(withdrawn=False).banco_suivi

    back = exported(table)
    assert spectators_renamed([{**r, "id": None} for r in back]) == spectators_renamed(
        [canonical(line) for line in wanted]
    )
    out = io.BytesIO()
    validate_lines([orjson.dumps(r) for r in back], out)
    judged_back = [json.loads(x) for x in out.getvalue().splitlines()]
    assert spectators_renamed([{**v, "id": None} for v in judged_back]) == spectators_renamed(
        [{**expected[i], "id": None} for i in PROCEDURAL_IDS]
    )

    # a procedural code alone: restored as played, settled as recorded once a pit boss approves
    for rid, coup in coups.items():
        services.correction_submit(actor=croupier, coup=coup, cards=[])
        services.correction_approve(actor=pit_boss, coup=coup)
        coup.refresh_from_db()
        settlement = coup.steps.get(kind="correction").payload["settlement"]
        assert coup.state == "settled"
        assert spectators_renamed(settlement) == spectators_renamed(expected[rid]["settlement"])
