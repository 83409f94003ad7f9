"""A shop at its cap of requests in progress refuses a change at once (503, Retry-After), and
the page sends the change again after that wait by itself: the customer's choice is not lost to
a busy second. A newer choice made meanwhile stands for the older one, which is not sent again."""

from __future__ import annotations

import http.client
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import DEFAULT, WAIT, choose_radio, wait_for_guitar, wait_live
from conftest import _run_server


@pytest.fixture(scope="module")
def busy_server(tmp_path_factory):
    """A shop with one place for a request in progress, whose workshop answers in 1–2 s: one
    customer's checkout holds the place while it waits, and every other post is refused busy."""
    yield from _run_server(tmp_path_factory, "busy-server",
                           ("--max-requests-in-progress", "1", "--simulate-latency"))


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


class _Checkout:
    """Another customer's checkout, posted on a thread of its own: it holds the shop's one place
    while the workshop answers. Started once the shop answers readiness as busy."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        with urllib.request.urlopen(base_url + "/", timeout=10) as response:
            self.cookie = response.headers["Set-Cookie"].split(";")[0]
        self.status: int | None = None
        self.thread = threading.Thread(target=self._post)

    def _post(self) -> None:
        parts = urllib.parse.urlsplit(self.base_url)
        # Refused busy when it came while a readiness probe held the place: posted again.
        for _ in range(20):
            connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
            connection.request("POST", "/checkout", "", {"Cookie": self.cookie, "X-Requested-With": "fetch"})
            response = connection.getresponse()
            response.read()
            connection.close()
            if response.status != 503:
                break
        self.status = response.status

    def __enter__(self) -> "_Checkout":
        self.thread.start()
        # Readiness says busy while the checkout holds the one place (a probe alone takes it and
        # answers 200, so this waits for the checkout, not for itself).
        deadline = time.monotonic() + WAIT
        while _status(self.base_url + "/healthz") != 503:
            assert self.status is None and time.monotonic() < deadline, \
                f"the checkout never held the shop's one place (it answered {self.status})"
            time.sleep(0.02)  # polling another process, not synchronising with the page
        return self

    def __exit__(self, *exc) -> None:
        self.thread.join()
        assert self.status == 204, f"the other customer's checkout answered {self.status}"


def _notice(driver) -> str:
    notice = driver.find_element(By.ID, "notice")
    return notice.text if notice.is_displayed() else ""


def test_a_change_refused_as_busy_is_sent_again_by_the_page(driver, busy_server):
    driver.get(busy_server.base_url + "/")
    wait_live(driver)
    with _Checkout(busy_server.base_url):
        choose_radio(driver, "color", "sky")
        # Refused at once: the page says it will send it again, and shows what is stored.
        WebDriverWait(driver, WAIT).until(lambda d: "sent again" in _notice(d), "no notice of a retry")
    # Sent again once the place is free, by the page alone: the choice is stored and shown.
    wait_for_guitar(driver, {**DEFAULT, "color": "sky"})
    WebDriverWait(driver, WAIT).until(lambda d: _notice(d) == "", "the busy notice stayed")
    driver.get(busy_server.base_url + "/")
    wait_for_guitar(driver, {**DEFAULT, "color": "sky"})


def _accepted_builds(server) -> int:
    """The builder changes the server has accepted (its request log's `POST /build 204` lines)."""
    return sum(path.read_text(errors="replace").count("POST /build 204")
               for path in (server.stdout_path, server.stderr_path))


def test_a_newer_choice_stands_for_a_busy_one(driver, busy_server):
    driver.get(busy_server.base_url + "/")
    wait_live(driver)
    before = _accepted_builds(busy_server)
    with _Checkout(busy_server.base_url):
        choose_radio(driver, "color", "dusk")
        WebDriverWait(driver, WAIT).until(lambda d: "sent again" in _notice(d), "no notice of a retry")
        choose_radio(driver, "color", "earth")
    # Only the newest choice is sent again: the guitar ends earth, and earth is the one change
    # accepted (the refused dusk, sent again first, would be accepted before it).
    wait_for_guitar(driver, {**DEFAULT, "color": "earth"})
    WebDriverWait(driver, WAIT).until(lambda d: _notice(d) == "", "the busy notice stayed")
    assert _accepted_builds(busy_server) - before == 1
    driver.get(busy_server.base_url + "/")
    wait_for_guitar(driver, {**DEFAULT, "color": "earth"})
