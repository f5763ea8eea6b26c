"""The ledger app is installed and empty for now (its entries come with the next issue)."""

from django.apps import apps


def test_ledger_app_is_installed_without_models_yet() -> None:
    config = apps.get_app_config("ledger")
    assert (config.verbose_name, list(config.get_models())) == ("Ledger", [])
