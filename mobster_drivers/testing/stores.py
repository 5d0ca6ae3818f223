"""Real servers for the path stores' tests and the fleet benchmark: a throwaway PostgreSQL and an S3 API.

Not fakes: the real PostgreSQL 15 of the machine, and moto's S3 server (the S3 API of AWS's own
SDK tests), each started for a session and stopped at its end.

Rule 1 (PostgreSQL): a cluster in a temporary folder (``initdb --no-sync``, trust auth, user
        ``mobster``), served by ``postgres`` on a unix socket in that folder only (no TCP
        listener), fsync off. PostgreSQL refuses to run as root: as root, both run as ``nobody``
        (``setpriv``), the folder given to it. ``postgres`` is this process's child with
        ``--pdeathsig KILL``: it dies with the test process; :meth:`PostgresServer.stop` asks for
        a fast shutdown and removes the folder. Ready is when its log says it accepts
        connections (waiting on its output, bounded, never a sleep).
Rule 2 (S3): moto's S3 app served in this process on 127.0.0.1 (port 0: the system picks it), by a
        werkzeug server that serves **one request at a time**. moto checks ``If-None-Match`` and
        ``If-Match`` and then writes, without a lock, so a threaded moto lets two racing
        conditional writes both win where AWS S3 lets exactly one (AWS serializes conditional
        writes to one key, and answers the loser 412 or 409). Serving one request at a time
        makes moto's check-and-write atomic, as AWS's is; it is slower than AWS under load, never
        kinder. The server thread is a daemon and :meth:`S3Server.stop` shuts it down.
Rule 3: :func:`postgres_unavailable` and :func:`s3_unavailable` say why a server can't start here
        (not installed, no ``setpriv`` as root), for the tests to skip with.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Self

__all__ = ["PostgresServer", "S3Server", "postgres_unavailable", "s3_unavailable"]

_NOBODY = 65534
_READY = "database system is ready to accept connections"


def _as_user() -> list[str]:
    """Rule 1: the command prefix that runs PostgreSQL as ``nobody`` when this process is root."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    assert setpriv is not None  # postgres_unavailable() says so first
    return [setpriv, f"--reuid={_NOBODY}", f"--regid={_NOBODY}", "--clear-groups", "--"]


def postgres_unavailable() -> str | None:
    """Rule 3: why a PostgreSQL can't be started here (None: it can)."""
    for tool in ("initdb", "postgres"):
        if shutil.which(tool) is None:
            return f"PostgreSQL isn't installed here ({tool} is not on PATH)"
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "PostgreSQL refuses to run as root, and setpriv (util-linux) isn't here to run it as nobody"
    try:
        import psycopg  # noqa: F401 - only whether the client is there
    except ImportError:
        return "psycopg isn't installed (the dev group: scripts/install.sh -e '.[all]' --group dev)"
    return None


def s3_unavailable() -> str | None:
    """Rule 3: why the S3 API server can't be started here (None: it can)."""
    try:
        import boto3  # noqa: F401 - only whether the client is there
        import moto.server  # noqa: F401
    except ImportError:
        return "moto[server] and boto3 aren't installed (the dev group: scripts/install.sh -e '.[all]' --group dev)"
    return None


class PostgresServer:
    """Rule 1: a throwaway PostgreSQL on a unix socket; :attr:`url` is its connection string."""

    def __init__(self, *, start_timeout: float = 60.0) -> None:
        self.start_timeout = start_timeout
        self.folder = Path(tempfile.mkdtemp(prefix="mobster-pg-"))
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: list[str] = []
        self._changed = threading.Condition()

    @property
    def socket_dir(self) -> Path:
        """The folder of the server's socket."""
        return self.folder

    @property
    def url(self) -> str:
        """``postgresql://mobster@/postgres?host=<socket folder>``."""
        return f"postgresql://mobster@/postgres?host={self.socket_dir}"

    def start(self) -> Self:
        """Make the cluster and start the server (Rule 1); ``RuntimeError`` with its log when it can't."""
        data = self.folder / "data"
        if os.geteuid() == 0:
            os.chown(self.folder, _NOBODY, _NOBODY)
        initdb = [*_as_user(), "initdb", "-D", str(data), "-U", "mobster", "-A", "trust", "-E", "UTF8", "--no-sync"]
        done = subprocess.run(initdb, capture_output=True, check=False, timeout=self.start_timeout)  # noqa: S603
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed ({done.returncode}):\n{done.stderr.decode(errors='replace')[-2000:]}")
        setpriv = shutil.which("setpriv")
        death = [setpriv, "--pdeathsig", "KILL", "--"] if setpriv else []
        settings = ("listen_addresses=", "fsync=off", "synchronous_commit=off", "full_page_writes=off")
        command = [
            *death, *_as_user(), "postgres", "-D", str(data), "-k", str(self.socket_dir), "-p", "5432",
            *(arg for s in settings for arg in ("-c", s)),
        ]  # fmt: skip
        process = subprocess.Popen(  # noqa: S603
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        self._process = process
        threading.Thread(target=self._read, args=(process,), name="postgres-output", daemon=True).start()
        with self._changed:
            self._changed.wait_for(
                lambda: process.poll() is not None or any(_READY in line for line in self._lines), self.start_timeout
            )
        if process.poll() is not None or not any(_READY in line for line in self._lines):
            self.stop()
            raise RuntimeError(f"PostgreSQL did not start:\n{''.join(self._lines[-30:])}")
        return self

    def stop(self) -> None:
        """A fast shutdown (SIGINT), SIGKILL after 15 s; the folder removed. Safe to call twice."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _read(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        for raw in iter(process.stdout.readline, b""):
            with self._changed:
                self._lines.append(raw.decode("utf-8", "replace"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class S3Server:
    """Rule 2: moto's S3 API on 127.0.0.1, one request at a time; :attr:`endpoint` is its URL."""

    #: The credentials the tests and the benchmark give boto3 (moto takes any).
    ENVIRONMENT: ClassVar[dict[str, str]] = {
        "AWS_ACCESS_KEY_ID": "mobster-test",
        "AWS_SECRET_ACCESS_KEY": "mobster-test-secret",
        "AWS_DEFAULT_REGION": "us-east-1",
    }

    def __init__(self) -> None:
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        """``http://127.0.0.1:PORT``."""
        assert self._server is not None, "start() the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> Self:
        """Serve moto's S3 app (Rule 2)."""
        from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
        from werkzeug.serving import make_server

        class Quiet(MotoRequestHandler):  # moto's handler, without a line per request
            def log_request(self, *args: object, **kwargs: object) -> None:
                pass

        app = DomainDispatcherApplication(create_backend_app)
        self._server = make_server("127.0.0.1", 0, app, threaded=False, request_handler=Quiet)
        self._thread = threading.Thread(target=self._server.serve_forever, name="moto-s3", daemon=True)
        self._thread.start()
        return self

    def bucket(self, name: str) -> None:
        """Create the bucket ``name``."""
        import boto3

        client = boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name=self.ENVIRONMENT["AWS_DEFAULT_REGION"],
            aws_access_key_id=self.ENVIRONMENT["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=self.ENVIRONMENT["AWS_SECRET_ACCESS_KEY"],
        )
        client.create_bucket(Bucket=name)

    def stop(self) -> None:
        """Shut the server down. Safe to call twice."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
