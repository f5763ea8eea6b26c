"""The Chemin de Fer rules engine: pure Python, no Django.

Plain frozen dataclasses in, verdicts out. Everything the back-office enforces about the game
lives here so that an auditor can re-check a history without the database (``validate_coups``).
"""
