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
