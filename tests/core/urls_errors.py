"""A URLconf for error-page tests only: views that fail on purpose."""

import psycopg
from django.core.exceptions import PermissionDenied
from django.db import OperationalError
from django.http import HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from casino.urls import urlpatterns as project_urls


def boom(request):
    raise RuntimeError("deliberate failure for the 500 page test")


def forbidden(request):
    raise PermissionDenied


urlpatterns = [path("boom/", boom), path("forbidden/", forbidden), *project_urls]

handler400 = "core.views.bad_request"
handler403 = "core.views.permission_denied"
handler404 = "core.views.page_not_found"


def database_down(request):
    raise database_unavailable_error()


def database_unavailable_error() -> OperationalError:
    """An OperationalError as Django raises it when PostgreSQL cannot be reached (psycopg's as cause)."""
    error = OperationalError("connection failed: Connection refused")
    error.__cause__ = psycopg.OperationalError("connection failed: Connection refused")
    return error


def echo(request):
    return HttpResponse(request.body)


urlpatterns += [
    path("api/echo/", csrf_exempt(echo)),
    path("api/boom/", boom),
    path("api/database-down/", database_down),
    path("database-down/", database_down),
]
handler500 = "core.views.server_error"
