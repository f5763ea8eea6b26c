"""Which language a request is answered in (docs/i18n.md).

Django's ``LocaleMiddleware`` with two house rules:

- the screens follow the language the user chose in the navigation (``set_language``'s cookie),
  else English. The browser's Accept-Language is not consulted: a tablet shared on the floor
  shows the language the floor chose, whatever its system locale, and English stays the default;
- the REST API (``/api/``) always answers in English: problem JSON, field errors and the schema
  are read by programs and quoted in support tickets, so their words must not change with a cookie.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

from core.problems import is_api


def screen_language(request: HttpRequest) -> str:
    """The language code of ``request``: its cookie's if supported, else ``LANGUAGE_CODE``."""
    if is_api(request):
        return settings.LANGUAGE_CODE
    chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    if chosen:
        try:
            return translation.get_supported_language_variant(chosen)
        except LookupError:
            pass  # a cookie naming a language we do not offer: the default
    return settings.LANGUAGE_CODE


class ScreenLocaleMiddleware(LocaleMiddleware):
    def process_request(self, request: HttpRequest) -> None:
        language = screen_language(request)
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
