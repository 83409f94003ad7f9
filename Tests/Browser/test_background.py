"""Calm in the background: once every tab of a browser has been hidden for a while (one second on
this test's server), its shared stream closes, and the server sees it go; when a tab shows again
the stream resumes from the page's version at once, and a change made meanwhile is not lost. The
kiosk never pauses. Visibility is driven by the test: it sets what `document.visibilityState`
answers and fires `visibilitychange`, as the browser does when a tab is hidden or shown."""

from __future__ import annotations

import re
import urllib.request

from selenium.webdriver.support.ui import WebDriverWait

from builder_page import DEFAULT, WAIT, open_builder, wait_for_guitar, wait_live
from conftest import ADMIN_TOKEN

SHOW_AS = """
Object.defineProperty(document, 'visibilityState', {value: arguments[0], configurable: true});
Object.defineProperty(document, 'hidden', {value: arguments[0] === 'hidden', configurable: true});
document.dispatchEvent(new Event('visibilitychange'));
"""


def show_as(driver, state: str) -> None:
    driver.execute_script(SHOW_AS, state)


def open_streams(server, kind: str) -> int:
    """The server's open event streams of `kind` (its metrics)."""
    request = urllib.request.Request(server.base_url + "/metrics",
                                     headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        text = response.read().decode()
    match = re.search(r'^luthier_open_event_streams\{kind="' + kind + r'"\} (\d+)', text, re.M)
    return int(match.group(1)) if match else 0


def wait_for_streams(driver, server, kind: str, count: int) -> None:
    WebDriverWait(driver, WAIT, poll_frequency=0.2).until(
        lambda _: open_streams(server, kind) == count, f"{kind} streams never came to {count}")


def test_hidden_tabs_close_the_stream_and_a_shown_one_resumes_it(driver, calm_server):
    d = driver
    open_builder(d, calm_server.base_url)
    wait_live(d)
    wait_for_guitar(d, DEFAULT)
    wait_for_streams(d, calm_server, "session", 1)

    show_as(d, "hidden")
    wait_for_streams(d, calm_server, "session", 0)

    # A change while the stream is closed (this tab's own post, as another tab's would be).
    d.execute_script("""fetch('/build', {method: 'POST', credentials: 'same-origin',
      headers: {'X-Requested-With': 'fetch', 'Content-Type': 'application/x-www-form-urlencoded'},
      body: 'color=sky'})""")
    show_as(d, "visible")
    wait_for_streams(d, calm_server, "session", 1)
    wait_for_guitar(d, {**DEFAULT, "color": "sky"})


def test_a_hidden_kiosk_keeps_its_stream(driver, calm_server):
    d = driver
    d.get(calm_server.base_url + "/kiosk")
    wait_live(d)
    wait_for_streams(d, calm_server, "kiosk", 1)
    show_as(d, "hidden")
    # Longer than the server's one second, on the page's own clock.
    d.execute_async_script("setTimeout(arguments[arguments.length - 1], 2500)")
    assert open_streams(calm_server, "kiosk") == 1
