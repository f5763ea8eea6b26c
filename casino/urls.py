from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.i18n import set_language
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from access import apis
from access import views as access_views
from core import views
from reports import urls as reports_urls
from review import urls as review_urls

urlpatterns = [
    path("", access_views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    # what a browser asks for before it reads a page's <link rel="icon"> (and for non-HTML answers)
    path("favicon.ico", views.favicon, name="favicon"),
    path("readyz", views.readyz, name="readyz"),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # POST language=fr|ru|en (+ next): sets the language cookie (docs/i18n.md)
    path("i18n/setlang/", set_language, name="set_language"),
    path("admin/", admin.site.urls),
    path("api/v1/me/", apis.MeView.as_view(), name="api-me"),
    path("api/v1/auth/token/", apis.TokenView.as_view(), name="api-token"),
    path("api/v1/", include("cage.api_urls")),
    path("api/v1/", include("reports.api_urls")),
    path("api/v1/", include("review.api_urls")),
    path("api/v1/", include("tables.api.urls")),
    path("table/", include("tables.urls")),
    path("cage/", include("cage.urls")),
    # The back office: the pit boss's pages (review) and accounting's exports (reports) share the
    # /review/ prefix and one URL namespace, "review" (two includes cannot share a namespace).
    path("review/", include(([*review_urls.urlpatterns, *reports_urls.urlpatterns], "review"))),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]

handler400 = "core.views.bad_request"
handler403 = "core.views.permission_denied"
handler404 = "core.views.page_not_found"
handler500 = "core.views.server_error"
