"""The Celery application that driver.py runs: a few small tasks.

Both the broker (kombu's Redis transport, database 0) and the result backend
(Celery's Redis backend, database 1) point at the one server under test,
whose port comes from CELERY_TEST_PORT. The worker imports this module with
`celery -A tasks worker`; the driver imports it to send tasks and read their
results.
"""

import os

from celery import Celery

PORT = int(os.environ["CELERY_TEST_PORT"])
BASE = f"redis://127.0.0.1:{PORT}"

app = Celery("shale_celery", broker=f"{BASE}/0", backend=f"{BASE}/1")
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    # A server that is down or refuses the connection must fail the run, not
    # make the worker or the driver retry forever.
    broker_connection_retry=False,
    broker_connection_retry_on_startup=False,
    broker_connection_max_retries=0,
    broker_transport_options={"socket_timeout": 10, "socket_connect_timeout": 5},
    redis_socket_timeout=10,
    redis_socket_connect_timeout=5,
    # The worker takes one message per process at a time, so that tasks spread
    # over both pool processes and the prefetch logic (unacked hash and index)
    # runs on every message.
    worker_prefetch_multiplier=1,
    task_acks_late=True,
    result_expires=600,
    worker_hijack_root_logger=False,
    worker_redirect_stdouts=False,
)


@app.task
def add(x, y):
    return x + y


@app.task
def mul(x, y):
    return x * y


@app.task
def tsum(values):
    return sum(values)


@app.task
def echo(value):
    return value


@app.task
def fail(message):
    raise ValueError(message)


@app.task(bind=True, max_retries=5)
def flaky(self, succeed_after):
    """Retries itself until it has been retried succeed_after times."""
    if self.request.retries < succeed_after:
        raise self.retry(countdown=0)
    return self.request.retries
