"""Pages that have nothing live open no event stream, so none reloads itself in a loop; a page
that has something live follows it and says so calmly when it is cut off."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import DEFAULT, WAIT, click_label, wait_for_guitar, wait_live
from conftest import _run_server

STREAMS_REQUESTED = """
return {
  live: document.documentElement.dataset.live || null,
  events: document.body.getAttribute('data-events'),
  streams: performance.getEntriesByType('resource')
    .filter(function (e) { return e.name.includes('/events') || e.name.includes('/streams'); }).length,
  marker: window.__marker || null
};
"""


def test_error_pages_open_no_stream_and_stay_put(driver, base_url):
    for path in ("/no/such/page", "/orders/LU-NOSUCH", "/admin/analytics"):
        driver.get(base_url + path)
        driver.execute_script("window.__marker = 1")
        # The page has loaded its script (deferred) by now: it asked for nothing.
        WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.readyState") == "complete")
        state = driver.execute_script(STREAMS_REQUESTED)
        assert state == {"live": None, "events": None, "streams": 0, "marker": 1}, f"{path}: {state}"


CONNECTION_STATUS = """
var status = document.getElementById('connection-status');
return {
  live: document.documentElement.dataset.live || null,
  shown: status ? (status.hidden ? null : status.textContent) : null
};
"""


def test_a_killed_server_reads_reconnecting_and_the_restarted_one_is_followed(driver, tmp_path_factory):
    """A flaky network, as a person meets it: the server is killed under an open page; after two
    quiet seconds the page says "Reconnecting…"; the restarted server (same port and database)
    takes the page back, the notice goes, and a change made there shows live."""
    first = _run_server(tmp_path_factory, "flaky-server")
    server = next(first)
    driver.get(server.base_url + "/")
    wait_live(driver)
    assert driver.execute_script(CONNECTION_STATUS) == {"live": "connected", "shown": None}
    click_label(driver, "color", "earth")  # stored before the answer: the restart finds it
    wait_for_guitar(driver, {**DEFAULT, "color": "earth"})

    server.proc.kill()
    server.proc.wait()
    WebDriverWait(driver, WAIT, poll_frequency=0.1).until(
        lambda d: d.execute_script(CONNECTION_STATUS)["shown"] == "Reconnecting…")

    second = _run_server(tmp_path_factory, "flaky-server", port=int(server.base_url.rsplit(":", 1)[1]),
                         database=server.database)
    try:
        next(second)
        WebDriverWait(driver, 3 * WAIT, poll_frequency=0.1).until(
            lambda d: d.execute_script(CONNECTION_STATUS) == {"live": "connected", "shown": None})
        wait_for_guitar(driver, {**DEFAULT, "color": "earth"})
        click_label(driver, "shape", "sharpV")
        wait_for_guitar(driver, {**DEFAULT, "color": "earth", "shape": "sharpV"})
    finally:
        second.close()
        first.close()


def test_a_post_the_shop_does_not_answer_in_time_is_given_up_and_the_page_says_so(driver, base_url):
    """A click is never left unanswered: a post still unanswered after 10 s is given up and the
    page says so (the network is slowed to 12 s a request through Chromium's DevTools protocol)."""

    driver.get(base_url + "/")
    wait_live(driver)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 12000, "downloadThroughput": -1, "uploadThroughput": -1})
    try:
        click_label(driver, "color", "sky")
        WebDriverWait(driver, 20, poll_frequency=0.2).until(
            lambda d: "did not answer within 10 seconds" in (d.find_element(By.ID, "notice").text or ""))
    finally:
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
