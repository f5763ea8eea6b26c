"""The back office's REST routes, mounted at /api/v1/ (casino/urls.py; docs/api.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from review import apis

app_name = "review-api"
urlpatterns: list[URLPattern | URLResolver] = [
    path("players/<id:player_id>/rating/", apis.PlayerRatingView.as_view(), name="player-rating"),
]
