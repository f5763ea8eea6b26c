"""The site as it was before the review pages existed: the nav must still render."""

from django.contrib.auth import views as auth_views
from django.urls import include, path

from access import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("table/", include("tables.urls")),
]
