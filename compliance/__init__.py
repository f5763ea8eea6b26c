"""Cash-transaction compliance at the cage (issue 23 §2): the casino's cash policy (its thresholds
and the value of one chip), a player's identification, the log of large cash transactions and the
reports to file when a player's cash in (or out) over a gaming day crosses the report threshold.

The cage calls it inside its own transaction (``services.cash_move_check`` before the posting,
``services.cash_move_record`` after it), so a refused move writes nothing and an accepted one
writes its log entry and its report with the posting. See docs/compliance.md.
"""
