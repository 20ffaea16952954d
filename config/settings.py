"""Settings come from environment variables so one build runs anywhere (12-factor)."""

import os
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlparse

from corsheaders.defaults import default_headers

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("DATA_DIR", BASE_DIR / "data"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def database_from_url(url: str, statement_timeout: float = 0, client_check_interval: float = 0) -> dict:
    """Turn DATABASE_URL (postgres://user:pass@host:port/name or sqlite:///path) into Django's form.
    PostgreSQL connections start with the statement limit and the client check interval (seconds;
    0: none) set; SQLite's backend reads DATABASE_STATEMENT_TIMEOUT as each statement starts."""
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        path = unquote(parsed.path[1:] if parsed.path.startswith("//") else parsed.path) or ":memory:"
        return {
            # Django's, with each statement held to a deadline (queryengine/timeouts.py).
            "ENGINE": "config.backends.sqlite3",
            "NAME": path,
            # Tests run on a database in memory, as Django makes one for its own SQLite engine
            # (pytest-django knows that engine by name only and would name a file otherwise).
            "TEST": {"NAME": ":memory:"},
            # Several server processes share one file: readers never block the writer (WAL), a
            # write transaction takes the write lock when it begins (IMMEDIATE), so writers queue
            # behind each other for up to `timeout` seconds instead of failing halfway through.
            # Django turns foreign keys on for every SQLite connection.
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": float(os.environ.get("SQLITE_BUSY_TIMEOUT") or 20),
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    if parsed.scheme in {"postgres", "postgresql", "pgsql"}:
        options = dict(parse_qsl(parsed.query))
        # Set when each connection starts (libpq's `options`), pooled or not: nothing per request.
        # Options given in the URL come after these, so they win.
        started = [
            f"-c {name}={max(1, round(seconds * 1000))}"
            for name, seconds in (
                ("statement_timeout", statement_timeout),
                ("client_connection_check_interval", client_check_interval),
            )
            if seconds > 0
        ]
        if started:
            options["options"] = " ".join([*started, options.get("options", "")]).strip()
        # Statements the engine runs with one value (an object by id, a token, a change record)
        # are prepared on each connection (queryengine/prepared.py); Django's own statements are
        # never prepared. DATABASE_PREPARED=0 for a connection pooler in transaction mode that
        # cannot keep prepared statements (PgBouncer before 1.21).
        if env_bool("DATABASE_PREPARED", True):
            options["prepare_threshold"] = int(options.get("prepare_threshold", 5))
        if env_bool("DATABASE_POOL", True):
            options["pool"] = {
                "min_size": 1,
                "max_size": int(os.environ.get("DATABASE_POOL_SIZE", "10")),
                "timeout": 10,  # fail a request rather than hang when the database is unreachable
            }
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")),
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "OPTIONS": options,
        }
    raise ValueError(f"Unsupported DATABASE_URL scheme: {parsed.scheme!r}")


# Threads per server process that run a request's independent reads at once on PostgreSQL, each
# with its own connection beside the pool (queryengine/together.py); 0 reads in turn.
READ_WORKERS = int(os.environ.get("READ_WORKERS") or 2)
# Seconds one database statement may run, in requests and jobs (0: no limit); past it the API
# answers 503. Below gunicorn's WEB_TIMEOUT (120), so the client is answered before its worker
# is restarted. Migrations are not held to it.
DATABASE_STATEMENT_TIMEOUT = float(os.environ.get("DATABASE_STATEMENT_TIMEOUT") or 60)
# PostgreSQL (14 or later; 0 for older servers): seconds between checks that a running
# statement's client is still connected, so that the statement of a killed worker stops.
DATABASE_CLIENT_CHECK_INTERVAL = float(os.environ.get("DATABASE_CLIENT_CHECK_INTERVAL") or 5)
DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{DATA_DIR / 'netinventory.sqlite3'}"
DATABASES = {
    "default": database_from_url(DATABASE_URL, DATABASE_STATEMENT_TIMEOUT, DATABASE_CLIENT_CHECK_INTERVAL)
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3") and DATABASES["default"]["NAME"] != ":memory:":
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)

# Signs sessions and CSRF tokens. Without one in the environment servers refuse to start unless
# DEBUG is on (config/startup.py); other commands (migrate, the tests) use this development key.
SECRET_KEY = os.environ.get("SECRET_KEY") or "insecure-development-key-change-me-in-production"
# Seals API token keys at rest (inventory/users/sealing.py); defaults to one derived from SECRET_KEY.
TOKEN_SEALING_KEY = os.environ.get("TOKEN_SEALING_KEY", "")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "*")

# API behaviour (spec §8)
PAGINATE_COUNT = int(os.environ.get("PAGINATE_COUNT") or 50)
MAX_PAGE_SIZE = int(os.environ.get("MAX_PAGE_SIZE") or 0) if "MAX_PAGE_SIZE" in os.environ else 1000
STRICT_FILTERING = env_bool("STRICT_FILTERING", True)
# The longest regular expression a filter takes (`__re`, `__ire`, `__nre`, `__nire`, `cf_` ones).
FILTER_REGEX_MAX_LENGTH = int(os.environ.get("FILTER_REGEX_MAX_LENGTH") or 500)
# Values one filter argument may take (GraphQL lists; REST's query string holds 1000 in all).
FILTER_MAX_VALUES = int(os.environ.get("FILTER_MAX_VALUES") or 1000)
EXEMPT_VIEW_PERMISSIONS = env_list("EXEMPT_VIEW_PERMISSIONS")
MAX_DEPTH = 10
# Request limits: a body past this many bytes is a 413; a bulk write of more objects a 400.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("MAX_REQUEST_BODY_BYTES") or 20 * 1024 * 1024)
# Failed sign-ins (token provisioning with a password) allowed per address and per user name
# within the window before further attempts get 429 with Retry-After.
SIGNIN_FAILURES_ALLOWED = int(os.environ.get("SIGNIN_FAILURES_ALLOWED") or 5)
SIGNIN_FAILURE_WINDOW = int(os.environ.get("SIGNIN_FAILURE_WINDOW") or 300)
# Failed token lookups (unknown, malformed or expired keys) allowed per address within the window
# (seconds) before the address gets 429 with Retry-After, whatever token it sends.
TOKEN_FAILURES_ALLOWED = int(os.environ.get("TOKEN_FAILURES_ALLOWED") or 20)
TOKEN_FAILURE_WINDOW = int(os.environ.get("TOKEN_FAILURE_WINDOW") or 300)
# Shared by every server process: a file cache beside the embedded database, or CACHE_URL
# (redis://host:6379/0) when several machines serve the API.
CACHE_URL = os.environ.get("CACHE_URL", "")
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
    if CACHE_URL
    else {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(DATA_DIR / "cache"),
    }
}
# Every write is recorded in the change log; "0" keeps none (only to measure what it costs).
CHANGELOG_ENABLED = os.environ.get("CHANGELOG_ENABLED", "1") != "0"
# Change records also keep each object as the API shows it at depth 1 (`object_data_v2`), as the
# reference's do. "0" leaves it null: that read and its JSON cost bulk writes about half their
# time again, where `object_data` already holds every stored value.
CHANGELOG_OBJECT_DATA_V2 = os.environ.get("CHANGELOG_OBJECT_DATA_V2", "1") == "1"
# Change records older than this many days are purged by the "Purge the change log" job (0: never).
CHANGELOG_RETENTION_DAYS = int(os.environ.get("CHANGELOG_RETENTION_DAYS") or 90)
# Webhook requests: seconds to wait for the receiver (to connect, for each read, and for its whole
# answer), and failed requests retried this many times, the first after WEBHOOK_RETRY_DELAY
# seconds, each next after twice as long.
WEBHOOK_TIMEOUT = float(os.environ.get("WEBHOOK_TIMEOUT") or 10)
WEBHOOK_RETRIES = int(os.environ.get("WEBHOOK_RETRIES") or 5)
WEBHOOK_RETRY_DELAY = float(os.environ.get("WEBHOOK_RETRY_DELAY") or 10)
# Comma-separated CIDRs: webhooks may also send to these non-public networks (internal receivers);
# never to WEBHOOK_DENIED_NETWORKS, which wins over both (inventory/extras/outbound.py).
WEBHOOK_ALLOWED_NETWORKS = env_list("WEBHOOK_ALLOWED_NETWORKS")
WEBHOOK_DENIED_NETWORKS = env_list("WEBHOOK_DENIED_NETWORKS")
# Bytes of a receiver's answer read at most (the rest is dropped unread).
WEBHOOK_MAX_RESPONSE_BYTES = int(os.environ.get("WEBHOOK_MAX_RESPONSE_BYTES") or 65536)
# Largest file the text-file secrets provider reads (a larger one is an error, not read).
SECRET_FILE_MAX_BYTES = int(os.environ.get("SECRET_FILE_MAX_BYTES") or 65536)
# Variables environment-variable secrets may name (`NAME`, prefix `NETINVENTORY_SECRET_*`); none if empty.
SECRET_ENVIRONMENT_VARIABLES = env_list("SECRET_ENVIRONMENT_VARIABLES")
# Directories whose files users may name: text-file secrets, and webhooks' CA certificates (a
# file larger than WEBHOOK_CA_FILE_MAX_BYTES is not read).
SECRET_FILE_DIRECTORIES = env_list("SECRET_FILE_DIRECTORIES", "/run/secrets,/etc/netinventory/secrets")
WEBHOOK_CA_FILE_DIRECTORIES = env_list(
    "WEBHOOK_CA_FILE_DIRECTORIES", "/etc/ssl/certs,/usr/local/share/ca-certificates,/etc/netinventory/ca"
)
WEBHOOK_CA_FILE_MAX_BYTES = int(os.environ.get("WEBHOOK_CA_FILE_MAX_BYTES") or 1 << 20)
MAX_BULK_OBJECTS = int(os.environ.get("MAX_BULK_OBJECTS") or 10_000)
# Levels of objects and arrays a client's JSON (a request body, a written value) may nest.
MAX_JSON_DEPTH = int(os.environ.get("MAX_JSON_DEPTH") or 100)
# User-written templates (export templates, computed fields, webhook bodies, ...): what one
# rendering (an export, a page's computed fields, a webhook request) may spend, and the longest
# template source accepted.
TEMPLATE_TIME_LIMIT = float(os.environ.get("TEMPLATE_TIME_LIMIT") or 10)
TEMPLATE_MAX_ITERATIONS = int(os.environ.get("TEMPLATE_MAX_ITERATIONS") or 1_000_000)
TEMPLATE_MAX_OUTPUT = int(os.environ.get("TEMPLATE_MAX_OUTPUT") or 32 << 20)
TEMPLATE_MAX_LENGTH = int(os.environ.get("TEMPLATE_MAX_LENGTH") or 256 << 10)
# GraphQL documents: root fields (aliases included) and the rows their root lists may return.
GRAPHQL_MAX_ROOT_FIELDS = int(os.environ.get("GRAPHQL_MAX_ROOT_FIELDS") or 50)
GRAPHQL_MAX_ROWS = int(os.environ.get("GRAPHQL_MAX_ROWS") or 20_000)
# A client's GraphQL document, checked before it is validated or compiled: its size in bytes,
# its tokens, and the fields it selects once fragments are expanded (queryengine/limits.py).
GRAPHQL_MAX_DOCUMENT_BYTES = int(os.environ.get("GRAPHQL_MAX_DOCUMENT_BYTES") or 1 << 20)
GRAPHQL_MAX_TOKENS = int(os.environ.get("GRAPHQL_MAX_TOKENS") or 20_000)
GRAPHQL_MAX_SELECTIONS = int(os.environ.get("GRAPHQL_MAX_SELECTIONS") or 10_000)
# Memory (estimated, MiB) each server process may hold in prepared documents: those REST writes,
# and those clients write (queryengine.documentcache).
PREPARED_DOCUMENTS_MIB = int(os.environ.get("PREPARED_DOCUMENTS_MIB") or 128)
GRAPHQL_PREPARED_DOCUMENTS_MIB = int(os.environ.get("GRAPHQL_PREPARED_DOCUMENTS_MIB") or 32)

# `/metrics/` answers only callers with a valid API token when set.
METRICS_TOKEN_REQUIRED = env_bool("METRICS_TOKEN_REQUIRED", False)

CORS_ALLOWED_ORIGINS = env_list("CORS_ALLOWED_ORIGINS")
CORS_ALLOW_ALL_ORIGINS = env_bool("CORS_ALLOW_ALL_ORIGINS", False)
# Browser clients read these to page, negotiate and send If-Match back.
CORS_EXPOSE_HEADERS = ["API-Version", "ETag"]
# If-Match / If-None-Match must pass a preflight.
CORS_ALLOW_HEADERS = (*default_headers, "if-match", "if-none-match")

# Browser sign-in (/login/): send cookies over HTTPS only in production; origins (scheme and host)
# a form or script may POST from besides the service's own, e.g. behind a TLS-terminating proxy.
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
SESSION_COOKIE_AGE = int(os.environ.get("SESSION_COOKIE_AGE") or 14 * 24 * 3600)
# Behind HTTPS: plain http is redirected to https, and browsers are told to use https alone for
# SECURE_HSTS_SECONDS (sent on https answers only). Off for the demo over plain http.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_REDIRECT_EXEMPT = [r"^health/", r"^metrics/"]  # probes reach each process over plain http
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS") or 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
# The header a TLS-terminating proxy sets to "https" (X-Forwarded-Proto) where the server does not
# trust it already (gunicorn does from FORWARDED_ALLOW_IPS); the proxy must overwrite a client's.
_PROXY_SSL_HEADER = os.environ.get("SECURE_PROXY_SSL_HEADER", "").strip()
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_" + _PROXY_SSL_HEADER.upper().replace("-", "_"), "https") if _PROXY_SSL_HEADER else None
)
# Headers of every answer, as the reference sends them (config/security.py adds the CSP).
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Pages load only what the service serves and run no inline script or style: Swagger UI, GraphiQL
# and the dashboard start from files (their settings in data-* attributes), so a script injected
# into a page does not run, and no other site may frame one.
CONTENT_SECURITY_POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self' data:",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"

INSTALLED_APPS = [
    "web.apps.AdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "graphene_django",
    "inventory.users",
    "inventory.extras",
    "inventory.jobs",
    "inventory.tenancy",
    "inventory.dcim",
    "inventory.ipam",
    "inventory.circuits",
    "inventory.cloud",
    "inventory.wireless",
    "inventory.virtualization",
    "inventory.vpn",
    "inventory.data_validation",
    "inventory.load_balancers",
    "rest",
    "web.apps.WebConfig",
]

MIDDLEWARE = [
    "config.monitoring.metrics.MetricsMiddleware",  # first: times everything below it
    # Above CORS: its preflight answers carry the security headers too.
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.security.content_security_policy",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.common.CommonMiddleware",
    "config.browser.BrowserMiddleware",  # sessions, users, messages: not for API tokens
    "inventory.extras.changelog.ChangeContextMiddleware",
    "queryengine.definitions.RequestMiddleware",  # definitions kept between writes: checked once
]

# The admin asks for the session, authentication and message middleware by name: they are there,
# inside config.browser.BrowserMiddleware. CSRF is checked by each view that takes a session's
# form or write (web/views.py, the admin's own, rest/auth.py for the API), not by a middleware
# that token clients would pass through for nothing (security.W003).
SILENCED_SYSTEM_CHECKS = ["admin.E408", "admin.E409", "admin.E410", "security.W003"]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "users.User"
AUTHENTICATION_BACKENDS = ["inventory.users.permissions.ModelPermissionBackend"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
APPEND_SLASH = False  # the API answers a missing slash itself (spec §4.1: 302)

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

STATIC_URL = "/static/"  # served by web.views.static_file
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"
USE_I18N = False

GRAPHENE = {"SCHEMA": "queryengine.schema.schema"}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# Jobs (inventory/jobs, config/celery.py): modules whose Job classes are offered beside the
# built-in ones, and the task queue they run on.
JOBS_MODULES = env_list("JOBS_MODULES")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "filesystem://"
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {}
    if os.environ.get("CELERY_BROKER_URL")
    else {
        "data_folder_in": str(DATA_DIR / "celery" / "queue"),
        "data_folder_out": str(DATA_DIR / "celery" / "queue"),
        "control_folder": str(DATA_DIR / "celery" / "control"),
        "store_processed": False,
    }
)
for _folder in CELERY_BROKER_TRANSPORT_OPTIONS.values():
    if isinstance(_folder, str):
        Path(_folder).mkdir(parents=True, exist_ok=True)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_IGNORE_RESULT = True  # outcomes are job results in the database, not a result backend
CELERY_TASK_ACKS_LATE = True  # a job whose worker dies is delivered again rather than lost
CELERY_WORKER_PREFETCH_MULTIPLIER = 1  # long jobs: a worker takes one message at a time
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Scheduled jobs: `celery -A config beat` (or a worker with -B) reads them from the database and
# notices a new or changed schedule within this many seconds.
CELERY_BEAT_SCHEDULER = "inventory.jobs.scheduler:DatabaseScheduler"
CELERY_BEAT_MAX_LOOP_INTERVAL = float(os.environ.get("SCHEDULER_INTERVAL") or 5)
# The largest file a job may write (an export), in bytes.
JOB_FILE_MAX_SIZE = int(os.environ.get("JOB_FILE_MAX_SIZE") or 10 << 20)
# Git repositories (extras/git-repositories): where their clones live, the URL schemes their
# remotes may use (`file` only where listed: a path on this server), and the bounds of one sync.
GIT_ROOT = Path(os.environ.get("GIT_ROOT") or DATA_DIR / "git")
GIT_REMOTE_SCHEMES = env_list("GIT_REMOTE_SCHEMES", "http,https,ssh")
GIT_TIMEOUT = float(os.environ.get("GIT_TIMEOUT") or 300)  # seconds for one git command
GIT_MAX_SIZE = int(os.environ.get("GIT_MAX_SIZE") or 200 << 20)  # bytes of one clone, history included
GIT_MAX_FILE_SIZE = int(os.environ.get("GIT_MAX_FILE_SIZE") or 1 << 20)  # bytes of one file loaded
GIT_ALLOWED_NETWORKS = env_list("GIT_ALLOWED_NETWORKS")  # CIDRs of non-public hosts remotes may be on
GIT_DENIED_NETWORKS = env_list("GIT_DENIED_NETWORKS")  # CIDRs never fetched from (wins over allowed)
# Remotes whose jobs (`jobs/` of the repository) the worker may import and run: exact URLs, or
# prefixes ending in "/". Empty: no repository provides jobs (their code is run by the worker).
GIT_JOB_REPOSITORIES = env_list("GIT_JOB_REPOSITORIES")

# Uploaded files (image attachments) are kept below MEDIA_ROOT (a volume every server shares when
# several machines serve the API), under names the service makes, and served at MEDIA_URL only to
# users who may see the objects they belong to (rest/media.py), never as public static files. An
# image of more than IMAGE_FILE_MAX_BYTES is refused (400); a request body of more than
# MAX_REQUEST_BODY_BYTES, files included, is refused whole (413).
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or DATA_DIR / "media")
MEDIA_URL = "/media/"
IMAGE_FILE_MAX_BYTES = int(os.environ.get("IMAGE_FILE_MAX_BYTES") or 10 << 20)
