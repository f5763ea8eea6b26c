"""Ledger admin: nothing to show until the ledger models exist."""
