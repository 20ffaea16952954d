"""gunicorn settings, from the environment: `gunicorn -c gunicorn.conf.py config.wsgi:application`.

WEB_WORKERS processes (default: 2 per core + 1) with WEB_THREADS threads each (default 1; each
thread holds a database connection, so workers × threads stays within the database's limit and
DATABASE_POOL_SIZE). A request running past WEB_TIMEOUT seconds (default 120: large bulk writes)
restarts its worker; WEB_MAX_REQUESTS recycles workers now and then to bound memory growth.
Metrics of every worker are gathered in PROMETHEUS_MULTIPROC_DIR (default `data/prometheus`),
emptied when the server starts.
"""

import multiprocessing
import os
import shutil
from pathlib import Path

bind = os.environ.get("BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_WORKERS") or multiprocessing.cpu_count() * 2 + 1)
threads = int(os.environ.get("WEB_THREADS") or 1)
timeout = int(os.environ.get("WEB_TIMEOUT") or 120)
graceful_timeout = int(os.environ.get("WEB_GRACEFUL_TIMEOUT") or 30)
keepalive = int(os.environ.get("WEB_KEEPALIVE") or 5)
max_requests = int(os.environ.get("WEB_MAX_REQUESTS") or 10_000)
max_requests_jitter = max_requests // 10
accesslog = os.environ.get("WEB_ACCESS_LOG") or None  # "-" for standard output
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")

# Set before any worker imports prometheus_client, which reads it once.
_data = Path(os.environ.get("DATA_DIR") or Path(__file__).resolve().parent / "data")
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(_data / "prometheus"))


def on_starting(server):
    """Values left by an earlier run would be added to this one's: start from an empty directory."""
    directory = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True, exist_ok=True)
    if os.getuid() == 0 and server.cfg.uid != 0:  # workers that run as another user write there
        os.chown(directory, server.cfg.uid, server.cfg.gid)


def child_exit(server, worker):
    """A finished worker's live gauges (pool use) stop counting; its counters are kept."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
