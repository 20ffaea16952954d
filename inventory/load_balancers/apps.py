from django.apps import AppConfig


class LoadBalancersConfig(AppConfig):
    name = "inventory.load_balancers"
    label = "load_balancers"
    verbose_name = "Load Balancers"
    default_auto_field = "django.db.models.BigAutoField"
