"""Words stored as data and shown on the screens, marked for the translation catalogue.

Model choice labels, the engine's outcomes and actions, the built-in rule profiles' names and the
report kinds' titles are English wherever they are stored, sent (API, exports, audit) or tested; a
template translates them only when it shows them (``{% translate coup.get_state_display %}``,
docs/i18n.md). ``gettext_noop`` changes nothing at run time: it only lets ``makemessages`` find
them. tests/core/test_i18n.py checks that every label of ``DISPLAYED_CHOICES`` (and every report
kind's title and built-in profile) is listed here, so a new choice is not left untranslated.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

#: the model fields whose choice labels the screens show (app_label.Model, field)
DISPLAYED_CHOICES: tuple[tuple[str, str], ...] = (
    ("tables.Coup", "state"),
    ("tables.ShoeAlarm", "kind"),
    ("tables.CoupStep", "kind"),
    ("tables.Table", "first_banker_method"),
    ("tables.Table", "state"),
    ("tables.Table", "game"),
    ("tables.BankTurn", "end_reason"),
    ("tables.BankTurn", "started_how"),
    ("tables.Series", "end_reason"),
    ("ledger.Transaction", "kind"),
)

SCREEN_WORDS: tuple[str, ...] = (
    # tables.Coup.state
    gettext_noop("Open"),
    gettext_noop("awaiting correction"),
    gettext_noop("awaiting approval"),
    gettext_noop("Settled"),
    gettext_noop("Void"),
    gettext_noop("bank withdrawn"),
    # tables.ShoeAlarm.kind
    gettext_noop("impossible card"),
    gettext_noop("reshuffled before 5/6 dealt"),
    # tables.CoupStep.kind
    gettext_noop("bank declared"),
    gettext_noop("Bet"),
    gettext_noop("Banco"),
    gettext_noop("no more bets"),
    gettext_noop("card to the player"),
    gettext_noop("card to the banker"),
    gettext_noop("player shows a natural"),
    gettext_noop("player draws"),
    gettext_noop("player stands"),
    gettext_noop("banker shows a natural"),
    gettext_noop("banker draws"),
    gettext_noop("banker stands"),
    gettext_noop("hands shown"),
    gettext_noop("game restored"),
    gettext_noop("correction approved"),
    gettext_noop("correction rejected"),
    gettext_noop("coup voided by a pit boss"),
    gettext_noop("typo amended"),
    gettext_noop("bank withdrawn: nobody bet"),
    # tables.Table.first_banker_method
    gettext_noop("by lot"),
    gettext_noop("by auction"),
    gettext_noop("by acceptance in turn"),
    # tables.Table.state
    gettext_noop("Closed"),
    # tables.Table.game
    gettext_noop("Chemin de fer"),
    gettext_noop("Macao"),
    gettext_noop("Landsknecht"),
    gettext_noop("Old baccarat"),
    # tables.BankTurn.end_reason
    gettext_noop("Lost"),
    gettext_noop("Passed"),
    gettext_noop("banker left the table"),
    gettext_noop("session closed"),
    gettext_noop("the series ended"),
    # tables.BankTurn.started_how
    gettext_noop("in rotation after a lost bank"),
    gettext_noop("passed by the previous banker"),
    gettext_noop("new bank from the minimum"),
    gettext_noop("from an imported history"),
    gettext_noop("the house banks"),
    # tables.Series.end_reason
    gettext_noop("all coups played"),
    gettext_noop("nobody can open a bank"),
    gettext_noop("nobody bets against the bank"),
    gettext_noop("abandoned"),
    # ledger.Transaction.kind
    gettext_noop("buy-in at the cage"),
    gettext_noop("cash-out at the cage"),
    gettext_noop("coup settlement"),
    gettext_noop("provisional coup settlement"),
    gettext_noop("reversal of a provisional settlement"),
    gettext_noop("bank closed"),
    gettext_noop("reserve returned"),
    gettext_noop("hourly fee"),
    gettext_noop("card money"),
    gettext_noop("a spectator's share of a bank taken out"),
    gettext_noop("game coup settlement"),
    gettext_noop("tied stakes into the pool"),
    gettext_noop("the pool shared out"),
    gettext_noop("reserve fund due"),
    gettext_noop("reserve fund returned"),
    # the engine: outcomes (chemin_de_fer.engine.coup.Outcome) and what a hand did (Action)
    gettext_noop("player"),
    gettext_noop("banker"),
    gettext_noop("tie"),
    gettext_noop("natural"),
    gettext_noop("draw"),
    gettext_noop("stand"),
    gettext_noop("none"),
    # the built-in rule profiles (chemin_de_fer.engine.profiles.BUILTIN); a casino's own keep their name
    gettext_noop("Casino"),
    gettext_noop("Classic"),
    gettext_noop("Club"),
    gettext_noop("Home series"),
    # the reports generated in the background (reports/kinds.py KINDS: the form, the history)
    gettext_noop("Levy (percentage tax)"),
    gettext_noop("Hourly fees and card money"),
    gettext_noop("House win"),
    gettext_noop("Player ratings"),
    gettext_noop("Audit trail"),
    gettext_noop("Coup records"),
    gettext_noop("Cash-transaction log"),
    gettext_noop("Cash-transaction reports to file"),
)
