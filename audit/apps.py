from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "audit"
    verbose_name = "Audit trail"

    def ready(self) -> None:
        # Connects the login/logout/failed-login receivers; they only call audit.services.
        from audit import checks, receivers  # noqa: F401
