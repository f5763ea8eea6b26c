"""The home page: who the user is on the floor and where his work is."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from core.types import AuthenticatedHttpRequest
from tables.selectors import staff_profile


@login_required
@require_GET
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    return render(request, "home.html", {"staff": staff_profile(user=request.user)})
