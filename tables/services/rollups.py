"""The rollups (``TableDay``, ``CroupierDay``): per table and gaming day, what the dashboard and the
reports sum (docs/scaling.md, "Rollups").

Maintained by following the audit trail rather than by a hook in every writer. Every change to a
coup (a step, a settlement, a correction, a void, an import) and to a shoe is an audit event
naming its object, appended in commit order; ``rollups_refresh`` reads the events after its mark,
works out which table-days they touched and recomputes exactly those from the coups, bets, taxes
and alarms, then moves the mark, all in one transaction. Why this and not an increment in the
settlement's own transaction: no write path (live steps, the batched import, a correction approved
a week later, a pit boss's void) can be forgotten, a recompute is idempotent (a task run twice, or
redelivered, writes the same rows), and the rebuild from scratch is the same code. The cost is lag:
a refresh runs every minute (beat) and at the start of each dashboard view, so the pit sees every
committed change.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import orjson
from django.db import connection, transaction
from django.utils import timezone

from audit.models import GLOBAL_CHAIN, AuditEvent
from audit.selectors import audit_chain_heads
from chemin_de_fer.engine.odds import expected_levy_at_rate
from chemin_de_fer.engine.profiles import profile_from_dict
from tables.engine_bridge import expected_levy_per_chip
from tables.gaming_day import casino_calendar, gaming_day_sql
from tables.models import (
    CORRECTION_KINDS,
    BankTax,
    Bet,
    Casino,
    Coup,
    CoupStep,
    CroupierDay,
    RollupMark,
    Shoe,
    ShoeAlarm,
    Table,
    TableDay,
)

#: audit events read per refresh round (a refresh loops until it has caught up)
EVENTS_PER_ROUND = 20_000

# The gaming day of an instant in SQL, per casino: local time minus the cut-off, as a date
# (PostgreSQL's: these statements are its road; SQLite's is _figures_python).
_DAY = gaming_day_sql("{col}", tz="ca.time_zone", cutoff="ca.gaming_day_cutoff")
# a shoe's (``s``) table and casino (``ca``), whose time zone and cut-off say the gaming day
_CASINO = """JOIN tables_table t ON t.id = s.table_id
JOIN tables_casino ca ON ca.id = t.casino_id"""

_SETTLED_SQL = f"""
SELECT s.table_id, {_DAY.format(col="co.settled_at")} AS day, s.decks,
       rs.content -> 'profile',
       -- a bank's first coup that the profile exempts owes no levy (engine_bridge.expected_levy_per_chip)
       CASE WHEN co.first_coup_of_bank AND (rs.content -> 'levy' ->> 'first_coup_exempt')::boolean
            THEN 0 ELSE (rs.content -> 'levy' ->> 'rate_bp')::int END,
       count(*),
       count(*) FILTER (WHERE coalesce(
           (SELECT st.payload -> 'restored' ->> 'outcome' FROM tables_coupstep st
             WHERE st.coup_id = co.id AND st.kind = 'correction' ORDER BY st.index DESC LIMIT 1),
           (SELECT st.payload -> 'verdict' ->> 'outcome' FROM tables_coupstep st
             WHERE st.coup_id = co.id AND st.kind = 'reveal' ORDER BY st.index LIMIT 1)) = 'banker'),
       coalesce(sum((SELECT sum(b.amount) FROM tables_bet b WHERE b.coup_id = co.id AND NOT b.withdrawn)), 0),
       coalesce(sum(bt.amount), 0)
FROM tables_coup co
JOIN tables_rulessnapshot rs ON rs.digest = co.rules_snapshot_id
JOIN tables_shoe s ON s.id = co.shoe_id
{_CASINO}
LEFT JOIN tables_banktax bt ON bt.coup_id = co.id
WHERE co.state = 'settled' AND s.table_id = ANY(%s) AND co.settled_at >= %s AND co.settled_at < %s
GROUP BY 1, 2, 3, 4, 5
"""

_FLAGGED_SQL = f"""
SELECT s.table_id, {_DAY.format(col="co.created_at")}, count(*)
FROM tables_coup co
JOIN tables_shoe s ON s.id = co.shoe_id
{_CASINO}
WHERE co.flagged AND s.table_id = ANY(%s) AND co.created_at >= %s AND co.created_at < %s
GROUP BY 1, 2
"""

_ALARMS_SQL = f"""
SELECT s.table_id, {_DAY.format(col="a.raised_at")}, count(*)
FROM tables_shoealarm a
JOIN tables_shoe s ON s.id = a.shoe_id
{_CASINO}
WHERE s.table_id = ANY(%s) AND a.raised_at >= %s AND a.raised_at < %s
GROUP BY 1, 2
"""

# a coup counts on the day it began, for every person who recorded a game step of it; imported
# histories are left out (no croupier recorded them live), as are the correction workflow's steps
_CROUPIER_SQL = f"""
SELECT s.table_id, {_DAY.format(col="co.created_at")}, st.actor_id,
       count(DISTINCT co.id), count(*), count(*) FILTER (WHERE st.violations <> '[]'::jsonb)
FROM tables_coupstep st
JOIN tables_coup co ON co.id = st.coup_id
JOIN tables_shoe s ON s.id = co.shoe_id
{_CASINO}
WHERE NOT s.imported AND st.kind <> ALL(%s)
  AND s.table_id = ANY(%s) AND co.created_at >= %s AND co.created_at < %s
GROUP BY 1, 2, 3
"""


@dataclass
class LevySums:
    """A table's levy figures over some gaming days: what a rollup keeps per day (``TableDay``)
    and the levy report adds up per day, month and year (reports/builders/levy.py)."""

    coups: int = 0
    banker_wins: int = 0
    covered: int = 0
    levy: int = 0


@dataclass
class _Day(LevySums):
    expected: Fraction = field(default_factory=Fraction)
    flagged: int = 0
    alarms: int = 0


def _rows(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def _span(tables: list[Table], days: set[dt.date]) -> tuple[dt.datetime, dt.datetime]:
    """One time range covering ``days`` at every casino of ``tables`` (the SQL narrows it per day)."""
    calendars = {casino_calendar(t.casino) for t in tables}
    starts = [c.day_start(min(days)) for c in calendars]
    ends = [c.day_start(max(days) + dt.timedelta(days=1)) for c in calendars]
    return min(starts), max(ends)


_Figures = dict[tuple[int, dt.date], _Day]
_People = list[tuple[int, dt.date, int, int, int, int]]
_Wanted = set[tuple[int, dt.date]]
#: tables by id, the ids read together, the table-days wanted of them, the instants they span
_Group = tuple[dict[int, Table], list[int], _Wanted, dt.datetime, dt.datetime]


def _figures_sql(ids: list[int], start: dt.datetime, end: dt.datetime) -> tuple[_Figures, _People]:
    """PostgreSQL: the figures of these tables between two instants, grouped in the database."""
    figures: _Figures = defaultdict(_Day)
    for tid, day, decks, profile, rate, coups, wins, covered, levy in _rows(_SETTLED_SQL, [ids, start, end]):
        f = figures[(tid, day)]
        f.coups += coups
        f.banker_wins += wins
        f.covered += int(covered)
        f.levy += int(levy)
        if covered:
            # Django's PostgreSQL backend hands jsonb over as text (JSONField parses it itself)
            parsed = orjson.loads(profile) if isinstance(profile, str | bytes) else profile
            f.expected += expected_levy_at_rate(profile_from_dict(parsed), decks, rate or 0) * int(covered)
    for tid, day, count in _rows(_FLAGGED_SQL, [ids, start, end]):
        figures[(tid, day)].flagged = count
    for tid, day, count in _rows(_ALARMS_SQL, [ids, start, end]):
        figures[(tid, day)].alarms = count
    kinds = [k.value for k in CORRECTION_KINDS]
    people: _People = [
        (tid, day, uid, coups, steps, wrong)
        for tid, day, uid, coups, steps, wrong in _rows(_CROUPIER_SQL, [kinds, ids, start, end])
    ]
    return figures, people


def _figures_python(ids: list[int], start: dt.datetime, end: dt.datetime) -> tuple[_Figures, _People]:
    """The same figures row by row through the ORM: SQLite's road, and the independent derivation
    ``rollups_check`` compares the stored rollups with."""
    calendars = {
        t.pk: casino_calendar(t.casino) for t in Table.objects.select_related("casino").filter(pk__in=ids)
    }
    figures: _Figures = defaultdict(_Day)
    settled = Coup.objects.filter(
        state=Coup.State.SETTLED, shoe__table_id__in=ids, settled_at__gte=start, settled_at__lt=end
    ).values_list(
        "pk", "shoe__table_id", "shoe__decks", "rules_snapshot__content", "settled_at", "first_coup_of_bank"
    )
    for pk, tid, decks, rules, at, first_of_bank in settled.iterator(chunk_size=2000):
        assert at is not None  # filtered on
        steps = {
            kind: payload
            for kind, payload in CoupStep.objects.filter(
                coup_id=pk, kind__in=[CoupStep.Kind.REVEAL, CoupStep.Kind.CORRECTION]
            )
            .order_by("index")
            .values_list("kind", "payload")
        }
        restored = (steps.get(CoupStep.Kind.CORRECTION) or {}).get("restored") or {}
        played = (steps.get(CoupStep.Kind.REVEAL) or {}).get("verdict") or {}
        covered = sum(Bet.objects.filter(coup_id=pk, withdrawn=False).values_list("amount", flat=True))
        levy = BankTax.objects.filter(coup_id=pk).values_list("amount", flat=True).first() or 0
        f = figures[(tid, calendars[tid].day_of(at))]
        f.coups += 1
        f.banker_wins += (restored.get("outcome") or played.get("outcome")) == "banker"
        f.covered += covered
        f.levy += levy
        if covered:
            f.expected += expected_levy_per_chip(rules, decks, first_coup_of_bank=first_of_bank) * covered
    flagged = Coup.objects.filter(
        flagged=True, shoe__table_id__in=ids, created_at__gte=start, created_at__lt=end
    ).values_list("shoe__table_id", "created_at")
    for tid, at in flagged:
        figures[(tid, calendars[tid].day_of(at))].flagged += 1
    alarms = ShoeAlarm.objects.filter(
        shoe__table_id__in=ids, raised_at__gte=start, raised_at__lt=end
    ).values_list("shoe__table_id", "raised_at")
    for tid, at in alarms:
        figures[(tid, calendars[tid].day_of(at))].alarms += 1
    tally: dict[tuple[int, dt.date, int], list[Any]] = {}
    steps_q = (
        CoupStep.objects.filter(
            coup__shoe__table_id__in=ids,
            coup__shoe__imported=False,
            coup__created_at__gte=start,
            coup__created_at__lt=end,
        )
        .exclude(kind__in=[k.value for k in CORRECTION_KINDS])
        .values_list("coup__shoe__table_id", "coup__created_at", "actor_id", "coup_id", "violations")
    )
    for tid, at, user_id, coup_id, violations in steps_q.iterator(chunk_size=5000):
        row = tally.setdefault((tid, calendars[tid].day_of(at), user_id), [set(), 0, 0])
        row[0].add(coup_id)
        row[1] += 1
        row[2] += bool(violations)
    people = [(tid, day, uid, len(c), n, w) for (tid, day, uid), (c, n, w) in tally.items()]
    return figures, people


def _figures(ids: list[int], start: dt.datetime, end: dt.datetime) -> tuple[_Figures, _People]:
    if connection.vendor == "postgresql":
        return _figures_sql(ids, start, end)
    return _figures_python(ids, start, end)


def _table_day_rows(
    tables: dict[int, Table], figures: _Figures, wanted: set[tuple[int, dt.date]]
) -> list[TableDay]:
    return [
        TableDay(
            table_id=tid,
            casino_id=tables[tid].casino_id,
            gaming_day=day,
            coups=f.coups,
            banker_wins=f.banker_wins,
            covered=f.covered,
            levy=f.levy,
            expected_levy_micro=round(f.expected * 1_000_000),
            flagged=f.flagged,
            alarms=f.alarms,
        )
        for (tid, day), f in figures.items()
        if (tid, day) in wanted and (f.coups or f.flagged or f.alarms)
    ]


def _groups(table_days: dict[int, set[dt.date]]) -> Iterator[_Group]:
    """The table-days in groups read together (same first and last day): one query per metric."""
    tables = Table.objects.select_related("casino").in_bulk(list(table_days))
    groups: dict[tuple[dt.date, dt.date], list[int]] = defaultdict(list)
    for table_id, days in table_days.items():
        if table_id in tables and days:
            groups[(min(days), max(days))].append(table_id)
    for (first, last), ids in groups.items():
        wanted = {(tid, d) for tid in ids for d in table_days[tid]}
        start, end = _span([tables[i] for i in ids], {first, last})
        yield tables, ids, wanted, start, end


def _recompute(table_days: dict[int, set[dt.date]]) -> int:
    """Replace the rollup rows of exactly these table-days by what the records say now."""
    written = 0
    for tables, ids, wanted, start, end in _groups(table_days):
        figures, people = _figures(ids, start, end)
        days = sorted({d for _, d in wanted})
        TableDay.objects.filter(table_id__in=ids, gaming_day__in=days).delete()
        CroupierDay.objects.filter(table_id__in=ids, gaming_day__in=days).delete()
        rows = _table_day_rows(tables, figures, wanted)
        TableDay.objects.bulk_create(rows, batch_size=2000)
        CroupierDay.objects.bulk_create(
            [
                CroupierDay(
                    table_id=tid,
                    casino_id=tables[tid].casino_id,
                    gaming_day=day,
                    user_id=user_id,
                    coups=coups,
                    steps=steps,
                    wrong_steps=wrong,
                )
                for tid, day, user_id, coups, steps, wrong in people
                if (tid, day) in wanted
            ],
            batch_size=2000,
        )
        written += len(rows)
    return written


def _touched(events: Iterable[tuple[str, str, dt.datetime]]) -> dict[int, set[dt.date]]:
    """The table-days a stretch of audit events changed: a coup's (the day it began and the day
    it was settled), a shoe's (the day of the event: its alarms)."""
    coup_ids: set[int] = set()
    shoe_days: dict[int, set[dt.datetime]] = defaultdict(set)
    for object_type, object_id, at in events:
        if not object_id.isdigit():
            continue
        if object_type == "tables.coup":
            coup_ids.add(int(object_id))
        elif object_type == "tables.shoe":
            shoe_days[int(object_id)].add(at)
    touched: dict[int, set[dt.date]] = defaultdict(set)
    calendars: dict[int, Any] = {}

    def calendar(casino_id: int) -> Any:
        if casino_id not in calendars:
            calendars[casino_id] = casino_calendar(Casino.objects.get(pk=casino_id))
        return calendars[casino_id]

    ids = sorted(coup_ids)
    for i in range(0, len(ids), 5000):
        for table_id, casino_id, created, settled in Coup.objects.filter(
            pk__in=ids[i : i + 5000]
        ).values_list("shoe__table_id", "shoe__table__casino_id", "created_at", "settled_at"):
            cal = calendar(casino_id)
            touched[table_id].add(cal.day_of(created))
            if settled is not None:
                touched[table_id].add(cal.day_of(settled))
    for table_id, casino_id, shoe_id in Shoe.objects.filter(pk__in=list(shoe_days)).values_list(
        "table_id", "table__casino_id", "pk"
    ):
        touched[table_id].update(calendar(casino_id).day_of(at) for at in shoe_days[shoe_id])
    return touched


@dataclass(frozen=True)
class RefreshOutcome:
    events: int
    table_days: int
    #: the global chain's mark before and after (as before the chains were split)
    from_seq: int
    to_seq: int
    #: every chain's mark before and after, by chain (0: global, else a casino's id)
    marks_from: dict[int, int] = field(default_factory=dict)
    marks_to: dict[int, int] = field(default_factory=dict)


def _marks(mark: RollupMark) -> dict[int, int]:
    """The mark's position on every chain: the global chain's in ``audit_seq``, the casinos' in
    ``chain_seqs`` (JSON keys are text)."""
    return {GLOBAL_CHAIN: mark.audit_seq, **{int(c): int(s) for c, s in mark.chain_seqs.items()}}


def _marks_set(mark: RollupMark, marks: dict[int, int]) -> None:
    mark.audit_seq = marks.get(GLOBAL_CHAIN, 0)
    mark.chain_seqs = {str(c): s for c, s in sorted(marks.items()) if c != GLOBAL_CHAIN}


def rollups_refresh() -> RefreshOutcome:
    """Bring the rollups up to the audit trail's heads: recompute every table-day the events since
    the mark touched, chain by chain (each casino's chain has its own seqs, so the mark is one
    position per chain). Idempotent; concurrent calls queue on the mark's row lock."""
    outcome = _refresh(skip_locked=False)
    assert outcome is not None  # a waiting refresh always gets the lock
    return outcome


def rollups_refresh_unless_running() -> RefreshOutcome | None:
    """``rollups_refresh`` for a page about to read the rollups: None at once while another
    refresh runs (what the page reads is then at most that refresh behind)."""
    return _refresh(skip_locked=True)


def _refresh(*, skip_locked: bool) -> RefreshOutcome | None:
    events = table_days = 0
    RollupMark.objects.get_or_create(pk=1)
    with transaction.atomic():
        mark = RollupMark.objects.select_for_update(skip_locked=skip_locked).filter(pk=1).first()
        if mark is None:
            return None
        first = _marks(mark)
        marks = dict(first)
        # each chain's head first: every event up to it is committed (seqs are given under the
        # chain's lock, at commit), so moving the mark to it skips nothing still to come
        heads = {chain: point.seq for chain, point in audit_chain_heads().items()}
        for chain, head in sorted(heads.items()):
            at = marks.get(chain, 0)
            while True:
                batch = list(
                    AuditEvent.objects.filter(
                        chain=chain, seq__gt=at, seq__lte=head, object_type__in=["tables.coup", "tables.shoe"]
                    )
                    .order_by("seq")
                    .values_list("seq", "object_type", "object_id", "occurred_at")[:EVENTS_PER_ROUND]
                )
                if not batch:
                    break
                touched = _touched((kind, oid, when) for _, kind, oid, when in batch)
                _recompute(touched)
                events += len(batch)
                table_days += sum(len(d) for d in touched.values())
                at = batch[-1][0]
                if len(batch) < EVENTS_PER_ROUND:
                    break
            # events of other kinds move the mark too: the next refresh starts past them
            marks[chain] = max(at, head)
        _marks_set(mark, marks)
        mark.refreshed_at = timezone.now()
        mark.save(update_fields=["audit_seq", "chain_seqs", "refreshed_at"])
    return RefreshOutcome(
        events=events,
        table_days=table_days,
        from_seq=first.get(GLOBAL_CHAIN, 0),
        to_seq=marks.get(GLOBAL_CHAIN, 0),
        marks_from=first,
        marks_to=marks,
    )


def rollups_rebuild() -> int:
    """Recompute every table-day from the records (after a restore, or a change to the gaming day)
    and move the mark to the heads. Returns the rows written."""
    with transaction.atomic():
        mark, _ = RollupMark.objects.select_for_update().get_or_create(pk=1)
        heads = {chain: point.seq for chain, point in audit_chain_heads().items()}
        TableDay.objects.all().delete()
        CroupierDay.objects.all().delete()
        written = _recompute(_all_table_days())
        _marks_set(mark, heads)
        mark.refreshed_at = timezone.now()
        mark.save(update_fields=["audit_seq", "chain_seqs", "refreshed_at"])
    return written


def _all_table_days() -> dict[int, set[dt.date]]:
    """Every table-day with a coup begun or settled, or an alarm raised."""
    touched: dict[int, set[dt.date]] = defaultdict(set)
    for table in Table.objects.select_related("casino"):
        calendar = casino_calendar(table.casino)
        instants = list(Coup.objects.filter(shoe__table=table).values_list("created_at", "settled_at"))
        for created, settled in instants:
            touched[table.pk].add(calendar.day_of(created))
            if settled is not None:
                touched[table.pk].add(calendar.day_of(settled))
        for at in ShoeAlarm.objects.filter(shoe__table=table).values_list("raised_at", flat=True):
            touched[table.pk].add(calendar.day_of(at))
    return touched


@dataclass(frozen=True)
class RollupDifference:
    table_id: int
    gaming_day: dt.date
    what: str
    stored: Any
    derived: Any


def rollups_check() -> list[RollupDifference]:
    """Derive every table-day again, row by row through the ORM (not the SQL the refresh uses), and
    list where the stored rollups differ. Read-only."""
    differences: list[RollupDifference] = []
    stored = {(r.table_id, r.gaming_day): r for r in TableDay.objects.all()}
    stored_people = {
        (r.table_id, r.gaming_day, r.user_id): (r.coups, r.steps, r.wrong_steps)
        for r in CroupierDay.objects.all()
    }
    seen: set[tuple[int, dt.date]] = set()
    seen_people: set[tuple[int, dt.date, int]] = set()
    columns = ("coups", "banker_wins", "covered", "levy", "expected_levy_micro", "flagged", "alarms")
    for tables, ids, wanted, start, end in _groups(_all_table_days()):
        figures, people = _figures_python(ids, start, end)
        for row in _table_day_rows(tables, figures, wanted):
            key = (row.table_id, row.gaming_day)
            seen.add(key)
            have = stored.get(key)
            for column in columns:
                derived, kept = getattr(row, column), getattr(have, column) if have else None
                if derived != kept:
                    differences.append(RollupDifference(key[0], key[1], column, kept, derived))
        for tid, day, uid, coups, steps, wrong in people:
            if (tid, day) not in wanted:
                continue
            seen_people.add((tid, day, uid))
            kept_p = stored_people.get((tid, day, uid))
            if kept_p != (coups, steps, wrong):
                differences.append(
                    RollupDifference(tid, day, f"croupier {uid}", kept_p, (coups, steps, wrong))
                )
    for key in stored.keys() - seen:
        differences.append(RollupDifference(key[0], key[1], "row", "present", "absent"))
    for tid, day, uid in stored_people.keys() - seen_people:
        differences.append(RollupDifference(tid, day, f"croupier {uid}", "present", "absent"))
    return sorted(differences, key=lambda d: (d.gaming_day, d.table_id, d.what))
