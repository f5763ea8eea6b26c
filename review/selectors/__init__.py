"""The pit boss's reads, one module per page: ``queue``, ``coup_review``, ``dashboard``. Import from
the module of the page (no re-exports here)."""
