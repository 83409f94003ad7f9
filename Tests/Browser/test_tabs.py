"""Many tabs of one browser. Chromium allows six HTTP/1.1 connections per host: with a stream per
page, a seventh page stayed blank and a click's post queued behind the streams for ever. All tabs
now share one connection per stream through a shared worker, so ten pages load, every post from
any of them is answered, every tab follows changes live, and closing the tab that started the
worker loses nothing."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import DEFAULT, WAIT, click_label, wait_for_guitar, wait_live
from test_accessibility import violations

PAGES = ["/", "/cart", "/", "/kiosk", "/", "/cart", "/", "/kiosk", "/", "/cart"]


def badge(driver) -> str | None:
    return driver.execute_script(
        "var b = document.querySelector('#cart-badge .badge'); return b ? b.textContent.trim() : null")


def open_tabs(driver, base_url: str) -> list[tuple[str, str]]:
    tabs = []
    for index, path in enumerate(PAGES):
        if index > 0:
            driver.switch_to.new_window("tab")
        driver.get(base_url + path)
        wait_live(driver)
        tabs.append((driver.current_window_handle, path))
    return tabs


def test_ten_tabs_load_answer_every_post_and_follow_live(driver, base_url):
    tabs = open_tabs(driver, base_url)
    assert driver.execute_script("return 'SharedWorker' in window")
    builders = [handle for handle, path in tabs if path == "/"]
    carts = [handle for handle, path in tabs if path == "/cart"]
    assert len(builders) == 5 and len(carts) == 3

    # A post from every builder tab in turn: answered, and shown live in every builder tab.
    guitar = dict(DEFAULT)
    changes = [("color", "sky"), ("shape", "longV"), ("body", "koa"), ("fretboard", "ebony"), ("color", "dusk")]
    for (field, value), handle in zip(changes, builders):
        driver.switch_to.window(handle)
        click_label(driver, field, value)
        guitar[field] = value
        for other in builders:
            driver.switch_to.window(other)
            wait_for_guitar(driver, guitar)

    # "Add to cart" in one tab: every page's badge follows, the cart pages too.
    driver.switch_to.window(builders[2])
    driver.find_element(By.CSS_SELECTOR, "#add-to-cart-form button[type=submit]").click()
    for handle in carts + builders:
        driver.switch_to.window(handle)
        WebDriverWait(driver, WAIT, poll_frequency=0.1).until(lambda d: badge(d) == "1")

    # Closing the first tab (the one that started the shared worker) hands over without a loss.
    driver.switch_to.window(tabs[0][0])
    driver.close()
    driver.switch_to.window(builders[1])
    click_label(driver, "shape", "sharpV")
    guitar["shape"] = "sharpV"
    for handle in builders[1:]:
        driver.switch_to.window(handle)
        wait_for_guitar(driver, guitar)


def test_a_tab_that_joins_later_shows_the_latest_at_once(driver, base_url):
    driver.get(base_url + "/")
    wait_live(driver)
    click_label(driver, "color", "earth")
    wait_for_guitar(driver, {**DEFAULT, "color": "earth"})
    driver.switch_to.new_window("tab")
    driver.get(base_url + "/")
    wait_live(driver)
    wait_for_guitar(driver, {**DEFAULT, "color": "earth"})


def notice(driver) -> str | None:
    return driver.execute_script(
        "var n = document.getElementById('notice'); return n && !n.hidden ? n.textContent : null")


def notice_link(driver) -> str | None:
    return driver.execute_script(
        "var a = document.querySelector('#notice a'); return a ? a.getAttribute('href') : null")


def path(driver) -> str:
    return driver.execute_script("return window.location.pathname")


def test_a_checkout_moves_only_the_builder_tabs_and_tells_the_others(driver, base_url):
    """Starting a checkout used to send every tab of the session to /checkout, a cart tab being
    compared and a guide tab mid-way included, and "Back to the builder" then sent them all to /.
    Now only the builder tabs follow the checkout (and only the checkout tabs follow it back); the
    others stay where they were and say where the session went, with a link."""
    driver.get(base_url + "/")
    wait_live(driver)
    builder = driver.current_window_handle
    others = {}
    for page in ["/", "/cart", "/guide"]:
        driver.switch_to.new_window("tab")
        driver.get(base_url + page)
        wait_live(driver)
        others.setdefault(page, driver.current_window_handle)
    second_builder, cart, guide = others["/"], others["/cart"], others["/guide"]

    driver.switch_to.window(builder)
    driver.find_element(By.CSS_SELECTOR, "#checkout-form button[type=submit]").click()
    for handle in [builder, second_builder]:
        driver.switch_to.window(handle)
        WebDriverWait(driver, WAIT, poll_frequency=0.1).until(lambda d: path(d) == "/checkout")
        wait_live(driver)
    for handle, page in [(cart, "/cart"), (guide, "/guide")]:
        driver.switch_to.window(handle)
        WebDriverWait(driver, WAIT, poll_frequency=0.1).until(
            lambda d: (notice(d) or "").startswith("Your checkout is ready"))
        assert path(driver) == page
        assert notice_link(driver) == "/checkout"
        # The notice and its link pass axe as the page shows them.
        assert violations(driver) == [], page

    # "Back to the builder" from one checkout tab: the checkout tabs follow; the cart stays.
    driver.switch_to.window(builder)
    driver.find_element(By.CSS_SELECTOR, "#leave-form button[type=submit]").click()
    for handle in [builder, second_builder]:
        driver.switch_to.window(handle)
        WebDriverWait(driver, WAIT, poll_frequency=0.1).until(lambda d: path(d) == "/")
    driver.switch_to.window(cart)
    WebDriverWait(driver, WAIT, poll_frequency=0.1).until(
        lambda d: (notice(d) or "").startswith("The checkout in another tab has ended"))
    assert path(driver) == "/cart"
    assert notice_link(driver) == "/"


PLACE_ORDER = """
const done = arguments[arguments.length - 1];
const post = (url) => fetch(url, {
  method: 'POST', credentials: 'same-origin', body: '',
  headers: {'X-Requested-With': 'fetch', 'Content-Type': 'application/x-www-form-urlencoded'}});
(async () => {
  for (const url of ['/checkout', '/checkout/order']) {
    const answer = await post(url);
    if (!answer.ok) return done('refused ' + url + ': ' + answer.status + ' ' + await answer.text());
  }
  const page = await (await fetch('/checkout', {credentials: 'same-origin'})).text();
  const link = page.match(/id="order-link" href="([^"]+)"/);
  await post('/checkout/leave');
  done(link ? link[1] : 'no order link on the checkout page');
})();
"""


def place_order(driver) -> str:
    """Checks out and orders the session's guitar with the posts the shop's pages send (from the
    page open in `driver`); returns the order's link."""
    link = driver.execute_async_script(PLACE_ORDER)
    assert link.startswith("/orders/"), link
    return link


def inspector_lanes(driver) -> str:
    return driver.execute_script(
        "var l = document.getElementById('inspector-lanes'); return l ? l.innerHTML : ''")


def test_nine_distinct_streams_share_one_connection_every_tab_loads_and_every_click_is_answered(
        driver, base_url):
    """A builder, a kiosk, four inspector views and three order pages are nine distinct streams.
    With a connection per stream the browser ran out at six: the seventh tab never loaded and a
    click's post waited for ever. On one bundle every tab loads, follows live, and every click is
    answered."""
    driver.set_script_timeout(WAIT)
    driver.get(base_url + "/cart")
    wait_live(driver)
    links = [place_order(driver) for _ in range(3)]
    assert len(set(links)) == 3
    pages = ["/", "/kiosk", "/inspect?window=10", "/inspect?window=60", "/inspect?window=300",
             "/inspect?window=60&lane=tab", *links]
    tabs = {"/cart": driver.current_window_handle}
    for page in pages:
        driver.switch_to.new_window("tab")
        driver.get(base_url + page)
        wait_live(driver)
        tabs[page] = driver.current_window_handle
    inspectors = [page for page in pages if page.startswith("/inspect")]
    orders = [page for page in pages if page.startswith("/orders/")]
    for page in orders:
        driver.switch_to.window(tabs[page])
        assert driver.find_element(By.ID, "order-stages").text.strip()
    before = {}
    for page in inspectors:
        driver.switch_to.window(tabs[page])
        WebDriverWait(driver, WAIT, poll_frequency=0.1).until(lambda d: "<svg" in inspector_lanes(d))
        before[page] = inspector_lanes(driver)

    # Clicks in the builder: each post answered, shown live in the builder; the cart tab's badge
    # follows the "Add to cart"; every inspector draws what the clicks moved.
    driver.switch_to.window(tabs["/"])
    guitar = dict(DEFAULT)
    for field, value in [("color", "sky"), ("body", "koa"), ("shape", "longV")]:
        click_label(driver, field, value)
        guitar[field] = value
        wait_for_guitar(driver, guitar)
    driver.find_element(By.CSS_SELECTOR, "#add-to-cart-form button[type=submit]").click()
    WebDriverWait(driver, WAIT, poll_frequency=0.1).until(lambda d: badge(d) == "1")
    driver.switch_to.window(tabs["/cart"])
    WebDriverWait(driver, WAIT, poll_frequency=0.1).until(lambda d: badge(d) == "1")
    for page in inspectors:
        driver.switch_to.window(tabs[page])
        WebDriverWait(driver, WAIT, poll_frequency=0.1).until(
            lambda d: inspector_lanes(d) != before[page])
    # Every tab is still live, on the one shared connection.
    for page, handle in tabs.items():
        driver.switch_to.window(handle)
        wait_live(driver)


def test_without_shared_worker_each_page_follows_its_own_stream_with_the_same_client(driver, base_url):
    """Where SharedWorker does not exist (Chrome on Android), a page follows its stream itself,
    with the same stream client on a bundle of its own: live, and every post answered."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        delete window.SharedWorker;
        window.__streams = [];
        const Original = window.EventSource;
        window.EventSource = class extends Original {
          constructor(url, options) { super(url, options); window.__streams.push(String(url)); }
        };
    """})
    driver.get(base_url + "/")
    assert driver.execute_script("return 'SharedWorker' in window") is False
    wait_live(driver)
    streams = driver.execute_script("return window.__streams")
    assert len(streams) == 1 and streams[0].startswith("/streams?follow=%2Fevents"), streams
    click_label(driver, "color", "dusk")
    wait_for_guitar(driver, {**DEFAULT, "color": "dusk"})
