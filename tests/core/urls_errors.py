"""A URLconf for error-page tests only: views that fail on purpose."""

from django.core.exceptions import PermissionDenied
from django.urls import path

from casino.urls import urlpatterns as project_urls


def boom(request):
    raise RuntimeError("deliberate failure for the 500 page test")


def forbidden(request):
    raise PermissionDenied


urlpatterns = [path("boom/", boom), path("forbidden/", forbidden), *project_urls]

handler400 = "core.views.bad_request"
handler403 = "core.views.permission_denied"
handler404 = "core.views.page_not_found"
