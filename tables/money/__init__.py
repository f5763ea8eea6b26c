"""The game's money rules, posted to the chip ledger (which knows accounting only), one module per
subject:

- ``floor``: where the floor's services hand a coup's, a bank's or a seat's money over (keys
  derived from the cause, the coup's rules snapshot read);
- ``banks``: a bank declared, closed, a reserve returned, who holds a table's bank;
- ``bank_share``: a club spectator taking his share out of the bank;
- ``settlement``: a coup's settlement, its provisional form, replacement and reversal;
- ``fees``: hourly fees (which session-hours, who pays) and card money;
- ``series``: the home series' buy-ins, end and standings;
- ``sql``: the coup postings' hot-path queries.
"""
