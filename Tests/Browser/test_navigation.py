"""Going from page to page as a person does: a link the pointer rests on is prefetched (the
page's speculation rules, allowed by the Content-Security-Policy), and the shop's pages cross-fade
into each other (a cross-document view transition), off for someone who asks for less motion. The
page script's own navigations (the checkout is ready: the tab that asked, and the stream's
`navigate` in the others) are ordinary same-origin navigations, and go the same way."""

from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import WAIT, open_builder, wait_live
from cart_page import click_button
from checkout_page import wait_for_path

# Runs in every document before its own scripts: records whether the page arrived with a view
# transition (`pagereveal` is the new document's first event of it).
RECORD_ARRIVAL = """
window.__arrival = 'none';
window.addEventListener('pagereveal', (event) => {
  window.__arrival = event.viewTransition ? 'transition' : 'plain';
});
"""


def record_arrivals(driver) -> None:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_ARRIVAL})


def arrival(driver) -> str:
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return window.__arrival") != "none", "the page never revealed")
    return driver.execute_script("return window.__arrival")


def delivery(driver) -> str:
    return driver.execute_script("return performance.getEntriesByType('navigation')[0].deliveryType")


def answered(server, path: str) -> int:
    """How many times the server has answered `GET <path>` (its request log, one line a request;
    the server is shared, so a test compares counts)."""
    log = server.stdout_path.read_text(errors="replace") + server.stderr_path.read_text(errors="replace")
    return log.count(f"GET {path} 200")


def test_a_link_rested_on_is_prefetched_and_the_page_arrives_with_a_transition(driver, server, base_url):
    d = driver
    record_arrivals(d)
    open_builder(d, base_url)
    wait_live(d)
    before = answered(server, "/cart")
    ActionChains(d).move_to_element(d.find_element(By.ID, "cart-badge")).perform()
    WebDriverWait(d, WAIT).until(lambda _: answered(server, "/cart") > before, "the cart was not prefetched on hover")
    d.find_element(By.ID, "cart-badge").click()
    wait_for_path(d, "/cart")
    assert delivery(d) == "navigational-prefetch"
    assert arrival(d) == "transition"
    wait_live(d)


def test_the_checkout_a_builder_opens_arrives_with_a_transition(driver, base_url):
    d = driver
    record_arrivals(d)
    open_builder(d, base_url)
    wait_live(d)
    click_button(d, "checkout-button")
    wait_for_path(d, "/checkout")
    assert arrival(d) == "transition"


def test_less_motion_means_no_transition(driver, base_url):
    d = driver
    record_arrivals(d)
    d.execute_cdp_cmd("Emulation.setEmulatedMedia",
                      {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    open_builder(d, base_url)
    wait_live(d)
    d.find_element(By.ID, "cart-badge").click()
    wait_for_path(d, "/cart")
    assert arrival(d) == "plain"
