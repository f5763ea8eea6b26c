"""What the apps share: domain errors and their HTTP mapping, idempotent requests, the site-wide
views (home, /healthz, error pages) and /api/v1/me/."""
