"""A walk through every kind of page a customer, a kiosk or a stray visitor meets: the builder,
the cart empty and full, a checkout of a cart and of one guitar, just ordered, the order page,
the stream inspector (live, at a moment, and a page as it was), the guided build (a step and its
review), the workshop journal, the kiosk and an error page. Tests that check something of every page call `visit_every_kind_of_page`
with what to check on each."""

from __future__ import annotations

from typing import Callable

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import WAIT, click_label, wait_live

KINDS_OF_PAGE = 16


def click(driver, selector: str) -> None:
    """Clicks the element once it is clickable, again if a patch swapped it out meanwhile."""
    def clicked(d) -> bool:
        element = EC.element_to_be_clickable((By.CSS_SELECTOR, selector))(d)
        if not element:
            return False
        element.click()
        return True

    WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        clicked, f"{selector} not clickable within {WAIT} s")


def present(driver, selector: str):
    """Waits until an element `selector` names is on the page, and returns it."""
    return WebDriverWait(driver, WAIT).until(EC.presence_of_element_located((By.CSS_SELECTOR, selector)))


def visit_every_kind_of_page(driver, base_url: str, check: Callable[[str], None]) -> None:
    """Opens each kind of page in turn and calls `check(name)` while it is shown."""
    def visit(path: str, name: str, showing: str | None = None) -> None:
        """Loads `path`, waits for its stream and for `showing`, and checks it as `name`."""
        driver.get(base_url + path)
        wait_live(driver)
        if showing:
            present(driver, showing)
        check(name)

    visit("/", "builder")
    visit("/cart", "empty cart")

    driver.get(base_url + "/")
    wait_live(driver)
    click_label(driver, "color", "sky")
    click(driver, "#add-to-cart-form button[type=submit]")
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return document.querySelector('#cart-badge .badge').textContent.trim()") == "1")
    driver.get(base_url + "/cart")
    wait_live(driver)
    driver.find_element(By.CSS_SELECTOR, "#discount-form input[name=code]").send_keys("WELCOME10")
    click(driver, "#discount-form button[type=submit]")
    present(driver, "#cart-discounted-total")
    check("cart with a line and a code")

    click(driver, "#cart-checkout")
    WebDriverWait(driver, WAIT).until(EC.url_contains("/checkout"))
    WebDriverWait(driver, WAIT).until(EC.element_to_be_clickable((By.ID, "order-button")))
    check("checkout of a cart")

    driver.get(base_url + "/")
    wait_live(driver)
    click(driver, "#checkout-form button[type=submit]")
    WebDriverWait(driver, WAIT).until(EC.url_contains("/checkout"))
    WebDriverWait(driver, WAIT).until(EC.element_to_be_clickable((By.ID, "order-button")))
    check("checkout of one guitar")
    click(driver, "#order-button")
    link = present(driver, "#order-link")
    check("ordered")
    driver.get(link.get_attribute("href"))
    check("order page")

    visit("/inspect?window=300", "stream inspector", showing="#inspector-lanes svg")

    # A step recorded while the inspector records, then the scrubber's moment and a page as it was.
    driver.get(base_url + "/")
    wait_live(driver)
    click_label(driver, "color", "earth")
    WebDriverWait(driver, WAIT).until(
        lambda d: d.find_element(By.ID, "guitar-description").text.startswith("Earth"))
    driver.get(base_url + "/inspect?window=300")
    wait_live(driver)
    click(driver, ".scrubber-form button[type=submit]")
    present(driver, "#moment-heading")
    check("stream inspector at a moment")
    click(driver, ".moment-pages a")
    present(driver, ".frozen-note")
    check("a page as it was")
    # A marble selected: its change's marbles lit, and the change's steps and patches beside.
    driver.get(base_url + "/inspect?window=300")
    click(driver, "#inspector-lanes a.marble[data-cause]")
    present(driver, "#cause-heading")
    check("stream inspector with a change selected")

    visit("/guide", "guided build")
    for field, value in (("shape", "longV"), ("color", "sky"), ("body", "koa"), ("fretboard", "ebony")):
        click(driver, f'label[for="guide-{field}-{value}"]')
        click(driver, "#guide-next")
        WebDriverWait(driver, WAIT).until(
            lambda d: d.execute_script("return document.getElementById('guide-heading').dataset.step") != field)
    present(driver, "#guide-to-checkout")
    check("guided build's review")

    visit("/journal", "workshop journal", showing="#journal-stories ol")
    visit("/kiosk", "kiosk")

    driver.get(base_url + "/no/such/page")
    check("error page")
