"""The cage (cashier's desk): players buy chips and cash them in; the cage registers players.

Screens under /cage/ (``views``, ``urls``, ``forms``), the REST endpoints under /api/v1/
(``apis``, ``api_urls``), reads (``selectors``), who may (``permissions``) and the game-side
writes (``services``), which check the actor and the amounts and then post through the ledger's
own cage services (ledger/services/cage.py). See docs/cage.md.
"""
