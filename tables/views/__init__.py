"""The game floor's HTML screens (the REST API lives in tables/api/)."""
