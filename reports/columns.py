"""The columns several reports carry (reports/builders/): one heading and one type for the same fact
in every file, so that a spreadsheet joining two reports finds the same key; a report whose
neighbouring columns want more or less room lays one out at its own width (``Column.at_width``)."""

from __future__ import annotations

from reports.model import Column, ColumnType

GAMING_DAY = Column("gaming_day", "Gaming day", ColumnType.DATE, 1.1)
PLAYER_ID = Column("player_id", "Player id", ColumnType.ID, 0.7)
PLAYER = Column("player", "Player", ColumnType.TEXT, 1.8)
TABLE_ID = Column("table_id", "Table id", ColumnType.ID, 0.6)
TABLE = Column("table", "Table", ColumnType.TEXT, 1.4)
SESSION_ID = Column("session_id", "Session", ColumnType.ID, 0.7)
TRANSACTION_ID = Column("transaction_id", "Transaction", ColumnType.ID, 0.9)
DIRECTION = Column("direction", "Direction", ColumnType.TEXT, 0.8)
VALUE = Column("value", "Value", ColumnType.TEXT, 1.1)
COUPS = Column("coups", "Coups", ColumnType.INT, 0.7)
LEVY = Column("levy", "Levy", ColumnType.INT, 0.9)
