import os

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from config.startup import secret_key_refusal  # noqa: E402 - reads the settings named above

if refusal := secret_key_refusal("the web server"):
    raise ImproperlyConfigured(refusal)
application = get_wsgi_application()
