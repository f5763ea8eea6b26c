"""The REST API's views, one module per subject (tables, sessions, people, shoes, banks, coups,
corrections) on the shared bases of ``base``."""
