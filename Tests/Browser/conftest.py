"""Browser-test fixtures: the real server binary on a free loopback port, and headless Chromium
drivers with JavaScript on or off. On a failing test, every open window's screenshot and page
source go to browser-artifacts/ at the repo root, and the server's stderr tail is printed.

Two servers at most, each started once per run: `server` (the default workshop pace, a day per
stage) for most tests, and `paced_server` (`--workshop-pace` PACED_WORKSHOP_PACE) for the tests
that watch orders move through the workshop's stages; each has its own fresh SQLite file.

Environment overrides (all optional):
  LUTHIER_BIN    server binary (default .build/debug/luthier)
  CHROME_BIN     browser binary (default /usr/bin/chromium)
  CHROMEDRIVER   driver binary (default /usr/bin/chromedriver)
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
import uuid
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "browser-artifacts"
SERVER_BIN = Path(os.environ.get("LUTHIER_BIN", REPO_ROOT / ".build" / "debug" / "luthier"))
CHROME_BIN = os.environ.get("CHROME_BIN", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")

SERVER_START_TIMEOUT = 30  # seconds until GET / must answer
SERVER_STOP_TIMEOUT = 10  # seconds between SIGTERM and SIGKILL
BROWSER_TIMEOUT = 10  # page loads and scripts

PACED_WORKSHOP_PACE = "3s"  # `paced_server`'s time per stage: several stages within a test

# With LUTHIER_BROWSER_ON_POSTGRES=1 and LUTHIER_TEST_POSTGRES_URL set, every server runs on a
# fresh PostgreSQL database of that server instead of an SQLite file (issue 19's store).
POSTGRES_URL = (os.environ.get("LUTHIER_TEST_POSTGRES_URL", "")
                if os.environ.get("LUTHIER_BROWSER_ON_POSTGRES") == "1" else "")

_servers: "list[Server]" = []  # the running servers, for the failure report


class Server:
    def __init__(self, proc: subprocess.Popen, base_url: str, stdout: Path, stderr: Path,
                 database: "Path | str", name: str = "server", extra_args: tuple[str, ...] = ()):
        self.proc = proc
        self.database = database
        self.base_url = base_url
        self.stdout_path = stdout
        self.stderr_path = stderr
        self.name = name
        self.extra_args = extra_args

    def tail(self, which: str = "stderr", lines: int = 40) -> str:
        path = self.stderr_path if which == "stderr" else self.stdout_path
        try:
            text = path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def describe(self) -> str:
        status = "running" if self.proc.poll() is None else f"exited with {self.proc.returncode}"
        flags = f", {' '.join(self.extra_args)}" if self.extra_args else ""
        parts = [f"{self.name} {self.base_url} ({status}, database {self.database}{flags})",
                 "--- stderr (tail) ---", self.tail("stderr")]
        out = self.tail("stdout")
        if out:
            parts += ["--- stdout (tail) ---", out]
        return "\n".join(parts)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            response.read(1)
        return True
    except urllib.error.HTTPError:
        return True  # it answered, even if not with 200: the tests will say what is wrong
    except (OSError, urllib.error.URLError):
        return False


def _fresh_postgres_database(name: str, server_url: str = "") -> str:
    """A new, empty database on the test PostgreSQL server (`LUTHIER_TEST_POSTGRES_URL`), made
    with `psql`, as a `postgres://` URL for `--database`."""
    base = urllib.parse.urlsplit(server_url or POSTGRES_URL)
    database = f"luthier_browser_{name.replace('-', '_')}_{uuid.uuid4().hex[:12]}"
    subprocess.run(
        ["psql", "-q", "-h", base.hostname or "127.0.0.1", "-p", str(base.port or 5432),
         "-U", base.username or "postgres", "-d", "postgres", "-c", f"CREATE DATABASE {database}"],
        check=True, stdin=subprocess.DEVNULL, capture_output=True)
    return urllib.parse.urlunsplit(base._replace(path="/" + database))


def _run_server(tmp_path_factory, name: str, extra_args: tuple[str, ...] = (),
                port: int | None = None, database: "Path | str | None" = None):
    """Starts `luthier` from the repo root on a free loopback port, with its own fresh SQLite file
    (never the repo's `luthier.sqlite`, never another run's stock) and `extra_args`; yields it
    once it answers; stops it. A restart test passes the `port` and `database` of the server it
    replaces."""
    if not (SERVER_BIN.is_file() and os.access(SERVER_BIN, os.X_OK)):
        pytest.fail(
            f"server binary {SERVER_BIN} is missing or not executable: "
            "run `swift build` first (Scripts/test does)",
            pytrace=False,
        )
    logs = tmp_path_factory.mktemp(name)
    stdout, stderr = logs / "stdout.log", logs / "stderr.log"
    if database is None:
        database = (_fresh_postgres_database(name) if POSTGRES_URL
                    else tmp_path_factory.mktemp(f"{name}-database") / "luthier.sqlite")
    port = port or _free_port()
    base_url = f"http://127.0.0.1:{port}"
    command = [str(SERVER_BIN), "--host", "127.0.0.1", "--port", str(port),
               "--public", "Public", "--templates", "Templates", "--database", str(database),
               # Every browser test orders from 127.0.0.1; the limits have tests of their own.
               "--orders-per-hour-per-session", "1000", "--orders-per-hour-per-client", "100000",
               "--scarce-wood-stock", "0",
               *extra_args]
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        proc = subprocess.Popen(command, cwd=REPO_ROOT, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err)
    srv = Server(proc, base_url, stdout, stderr, database, name, extra_args)
    _servers.append(srv)
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while not _answers(base_url + "/"):
            if proc.poll() is not None:
                pytest.fail(f"{' '.join(command)} exited before answering\n{srv.describe()}",
                            pytrace=False)
            if time.monotonic() > deadline:
                pytest.fail(f"{base_url}/ did not answer within {SERVER_START_TIMEOUT} s\n"
                            f"{srv.describe()}", pytrace=False)
            time.sleep(0.1)  # polling a process, not synchronising with a page
        yield srv
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=SERVER_STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        _servers.remove(srv)


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Server:
    """The shop at its default settings, shared by the tests of a run."""
    yield from _run_server(tmp_path_factory, "server")


@pytest.fixture(scope="session")
def paced_server(tmp_path_factory) -> Server:
    """A second shop whose workshop spends PACED_WORKSHOP_PACE on each stage, so that a test sees
    an order move through the stages (the kiosk's board, the order page) while it watches."""
    yield from _run_server(tmp_path_factory, "paced-server",
                           ("--workshop-pace", PACED_WORKSHOP_PACE))


ADMIN_TOKEN = "browser-tests-admin-token-of-32-characters"


@pytest.fixture(scope="session")
def admin_server(tmp_path_factory) -> Server:
    """A shop with the admin pages on (ADMIN_TOKEN), for the tests of the workshop's admin."""
    yield from _run_server(tmp_path_factory, "admin-server", ("--admin-token", ADMIN_TOKEN))


@pytest.fixture(scope="session")
def calm_server(tmp_path_factory) -> Server:
    """A shop whose pages close their streams after one second with every tab hidden (the
    default is five minutes), with its metrics on (ADMIN_TOKEN), to see the streams drop."""
    yield from _run_server(tmp_path_factory, "calm-server",
                           ("--hidden-stream-close-seconds", "1", "--admin-token", ADMIN_TOKEN))


@pytest.fixture(scope="session")
def base_url(server: Server) -> str:
    return server.base_url


@pytest.fixture(scope="session")
def paced_base_url(paced_server: Server) -> str:
    return paced_server.base_url


def _chrome_options(js: bool) -> Options:
    options = Options()
    options.binary_location = CHROME_BIN
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1000"):
        options.add_argument(arg)
    if not js:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2})
    return options


@pytest.fixture
def new_browser(request):
    """A factory: `new_browser(js=True)` starts a new browser (its own cookies, so its own
    session); every browser it made is quit when the test ends."""
    drivers: list[webdriver.Chrome] = []
    request.node._luthier_drivers = drivers

    def make(js: bool = True) -> webdriver.Chrome:
        driver = webdriver.Chrome(options=_chrome_options(js), service=Service(CHROMEDRIVER))
        driver.set_page_load_timeout(BROWSER_TIMEOUT)
        driver.set_script_timeout(BROWSER_TIMEOUT)
        driver.implicitly_wait(0)
        driver._luthier_js = js
        drivers.append(driver)
        return driver

    yield make
    for driver in drivers:
        try:
            driver.quit()
        except Exception:  # noqa: BLE001 - a dead browser must not hide the test's result
            pass


@pytest.fixture
def driver(new_browser) -> webdriver.Chrome:
    """A headless Chromium with JavaScript enabled."""
    return new_browser(js=True)


@pytest.fixture
def nojs_driver(new_browser) -> webdriver.Chrome:
    """A headless Chromium with JavaScript disabled (like a browser with scripts turned off)."""
    return new_browser(js=False)


# --- failure artifacts -----------------------------------------------------------------------

def pytest_sessionstart(session):
    shutil.rmtree(ARTIFACTS, ignore_errors=True)  # only this run's failures in there


def _save_browser_artifacts(item) -> list[str]:
    saved = []
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", item.nodeid.split("::", 1)[-1])
    for n, driver in enumerate(getattr(item, "_luthier_drivers", [])):
        try:
            handles = driver.window_handles
            current = driver.current_window_handle
        except Exception:  # noqa: BLE001
            continue
        for w, handle in enumerate(handles):
            name = f"{stem}-browser{n}-window{w}"
            try:
                driver.switch_to.window(handle)
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))
                (ARTIFACTS / f"{name}.html").write_text(
                    f"<!-- {driver.current_url} -->\n{driver.page_source}")
                saved.append(name)
            except Exception as error:  # noqa: BLE001
                saved.append(f"{name}: could not save ({type(error).__name__})")
        try:
            driver.switch_to.window(current)
        except Exception:  # noqa: BLE001
            pass
    return saved


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.failed or report.when == "teardown":
        return
    saved = _save_browser_artifacts(item)
    if saved:
        report.sections.append(
            ("browser artifacts", f"in {ARTIFACTS}:\n" + "\n".join(saved)))
    for srv in _servers:
        report.sections.append((f"luthier {srv.name}", srv.describe()))
        try:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            shutil.copy(srv.stderr_path, ARTIFACTS / f"{srv.name}-stderr.log")
            shutil.copy(srv.stdout_path, ARTIFACTS / f"{srv.name}-stdout.log")
        except OSError:
            pass
