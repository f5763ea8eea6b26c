"""The pit boss's back office: the corrections queue, a coup's review, the dashboard, the audit
verification (docs/review.md). Reads the game floor (tables/); the floor never imports it."""
