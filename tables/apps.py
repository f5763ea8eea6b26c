from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables and coups"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from tables.builtin import builtin_data_after_migrate

        # `manage.py flush` (and the test runner's flush between transactional tests) empties every
        # table, then emits post_migrate: re-create the built-in profiles and roles the data
        # migrations made, or the next request would find no groups at all.
        post_migrate.connect(builtin_data_after_migrate, sender=self, dispatch_uid="tables_builtin_data")
