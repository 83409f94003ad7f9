"""The checkout page (`GET /checkout`) and the order page (`GET /orders/{number}`) as the browser
tests see them: the expected texts computed from builder_page's price table, one atomic read of
the page, and bounded waits on it."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

from selenium.common.exceptions import (
    ElementClickInterceptedException,
    ElementNotInteractableException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import (
    CURRENCIES,
    FIELDS,
    SHIPPING,
    WAIT,
    differing,
    money,
    normalized,
    priced_name,
    quote,
    wait_for_reading,
)

PART_TITLES = {"shape": "Shape", "color": "Color", "body": "Body", "fretboard": "Fretboard"}
ESTIMATE = re.compile(r"About \d+ months?")
ORDER_NUMBER = re.compile(r"LU-[2-9A-Z]{6}")
PLACEHOLDER = "…"
CONGRATULATIONS_TEXT = "We're working on your new guitar! Hang tight, we'll be in touch"


def shipping_option_price(method: str, currency: str) -> str:
    """What a shipping option's label shows as its price: "Free" for nothing."""
    dollars = SHIPPING[method][2]
    return money(dollars, currency) if dollars else "Free"


def expected_checkout(guitar: dict[str, str], method: str = "pickup",
                      currency: str = "USD") -> dict:
    """What `checkout_state` must read (its keys that are listed here) once prices are shown."""
    totals = quote(guitar, method, currency)
    return {
        "path": "/checkout",
        "title": "Your guitar",
        "parts": [[PART_TITLES[f], priced_name(f, guitar[f], currency)] for f in FIELDS],
        "availability": "Available",
        "shipping_options": [[name, time, shipping_option_price(m, currency)]
                             for m, (name, time, _) in SHIPPING.items()],
        "shipping_checked": method,
        "delivery_time": SHIPPING[method][1],
        "currency_checked": currency,
        "base": totals["base"],
        "additions": totals["additions"],
        "shipping": totals["shipping"],
        "grand": totals["grand"],
        "pending": False,
        "order_button": "Order now",
        "order_disabled": False,
    }


# Works with the page's scripts off too (WebDriver's own scripts still run).
_STATE_JS = """
const q = s => document.querySelector(s);
const text = el => el ? (el.innerText || el.textContent || '').replace(/\\s+/g, ' ').trim() : null;
const rows = sel => Array.from(document.querySelectorAll(sel + ' dt'))
  .map(dt => [text(dt), text(dt.nextElementSibling)]);
const options = [], checked = {};
for (const input of document.querySelectorAll('#checkout-shipping input[name="option"]')) {
  const label = q('label[for="' + input.id + '"]');
  options.push(label ? [text(label.querySelector('.option-name')),
                        text(label.querySelector('.option-detail')),
                        text(label.querySelector('.option-price'))] : [input.value, null, null]);
  if (input.checked) checked.shipping = input.value;
}
const currency = q('#checkout-currency input[name="currency"]:checked');
const order = q('#order-button');
const link = q('#order-link');
const refresh = q('meta[http-equiv="refresh"]');
return {
  path: location.pathname,
  title: text(q('main h1')),
  parts: rows('#checkout-parts'),
  estimate: text(q('#estimate')),
  availability: text(q('#availability')),
  shipping_options: options,
  shipping_checked: checked.shipping || null,
  delivery_time: text(q('#delivery-time')),
  currency_checked: currency ? currency.value : null,
  base: text(q('#total-base')),
  additions: text(q('#total-additions')),
  shipping: text(q('#total-shipping')),
  grand: text(q('#grand-total')),
  pending: !!q('#rates-loading'),
  refresh: refresh ? refresh.getAttribute('content') : null,
  notice: text(q('#checkout-notice')),
  order_button: text(order),
  order_disabled: order ? order.disabled : null,
  congratulations: text(q('#congratulations')),
  order_number: text(q('#order-number')),
  order_link: link ? link.getAttribute('href') : null,
  confirmation_text: text(q('.confirmation')),
};
"""


def checkout_state(driver) -> dict:
    return driver.execute_script(_STATE_JS)


def wait_for_state(driver, accept, describe: str, timeout: float = WAIT, explain=None) -> dict:
    """Reads `checkout_state` until `accept(state)` holds; returns that state."""
    return wait_for_reading(driver, checkout_state, accept, describe, timeout, explain)


def wait_for_checkout(driver, guitar: dict[str, str], method: str = "pickup",
                      currency: str = "USD", timeout: float = WAIT) -> dict:
    """Waits until the checkout page shows `guitar` priced with `method` in `currency`."""
    expected = expected_checkout(guitar, method, currency)
    state = wait_for_state(
        driver, lambda seen: all(seen.get(key) == value for key, value in expected.items()),
        f"{guitar}, {method}, {currency}", timeout, explain=differing(expected))
    assert ESTIMATE.fullmatch(state["estimate"] or ""), f"estimate reads {state['estimate']!r}"
    return state


def wait_for_path(driver, path: str, timeout: float = WAIT) -> None:
    try:
        WebDriverWait(driver, timeout, poll_frequency=0.1).until(
            lambda d: urlparse(d.current_url).path == path)
    except WebDriverException:
        raise AssertionError(
            f"the browser did not go to {path} within {timeout} s (at {driver.current_url})"
        ) from None


def open_checkout(driver, base_url: str) -> None:
    """Loads `/checkout` (the session must have one) and waits for its totals."""
    driver.get(base_url + "/checkout")
    WebDriverWait(driver, WAIT).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, "#checkout-totals")))


def click_option(driver, input_id: str, expected_text: str | None = None) -> None:
    """Picks a checkout option as a person does: by clicking its label (checking what it says
    first, when given). Retries while the page swaps the picker for a freshly rendered one."""
    locator = (By.CSS_SELECTOR, f'label[for="{input_id}"]')

    def click(d) -> bool:
        element = EC.element_to_be_clickable(locator)(d)
        if not element:
            return False
        if expected_text is not None:
            assert normalized(element.text) == expected_text, (
                f"label {input_id} reads {element.text!r}, expected {expected_text!r}")
        element.click()
        return True

    WebDriverWait(driver, WAIT, poll_frequency=0.1,
                  ignored_exceptions=(StaleElementReferenceException,)).until(
        click, f"label {input_id} not clickable within {WAIT} s")


def shipping_label_text(method: str, currency: str) -> str:
    name, time, _ = SHIPPING[method]
    return f"{name} {time} {shipping_option_price(method, currency)}"


def currency_label_text(code: str) -> str:
    return f"{CURRENCIES[code][0]} {code}"


def choose_option(driver, input_id: str) -> None:
    """Checks a radio with JS off: the radio itself, or its label when the radio is styled away."""
    radio = driver.find_element(By.ID, input_id)
    try:
        if not radio.is_displayed():
            raise ElementNotInteractableException("radio hidden")
        radio.click()
    except (ElementNotInteractableException, ElementClickInterceptedException):
        click_option(driver, input_id)
    WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: d.find_element(By.ID, input_id).is_selected(),
        f"radio {input_id} not selected within {WAIT} s")


def submit_and_wait_for_page(driver, button_locator: tuple[str, str], landing_css: str) -> None:
    """Clicks a form's visible submit button (JS off) and waits for the next page to arrive."""
    old_page = driver.find_element(By.TAG_NAME, "html")
    button = driver.find_element(*button_locator)
    assert button.is_displayed(), f"{button_locator} must be visible without JS"
    button.click()
    # While the page navigates, ChromeDriver can answer the staleness check with an "inspector
    # error" instead of a stale-element error; that only means "not settled yet", so retry.
    WebDriverWait(driver, WAIT, ignored_exceptions=(WebDriverException,)).until(
        EC.staleness_of(old_page))
    WebDriverWait(driver, WAIT).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, landing_css)))


def wait_for_confirmation(driver) -> tuple[str, dict]:
    """Waits for "Congratulations!" after an order and checks its texts; returns the order number
    and the page's state."""
    state = wait_for_state(driver, lambda s: s["congratulations"] == "Congratulations!", "Congratulations!")
    return assert_confirmation(state), state


def assert_confirmation(state: dict) -> str:
    """Checks "Congratulations!" and its texts; returns the order number."""
    assert state["congratulations"] == "Congratulations!"
    assert CONGRATULATIONS_TEXT in (state["confirmation_text"] or ""), state["confirmation_text"]
    number = state["order_number"] or ""
    assert ORDER_NUMBER.fullmatch(number), f"order number {number!r}"
    link = urlparse(state["order_link"] or "")
    assert link.path == f"/orders/{number}", state["order_link"]
    key = parse_qs(link.query).get("key", [""])[0]
    assert key, f"order link {state['order_link']!r} has no key"
    return number


_ORDER_JS = """
const q = s => document.querySelector(s);
const text = el => el ? (el.innerText || el.textContent || '').replace(/\\s+/g, ' ').trim() : null;
return {
  path: location.pathname,
  title: text(q('main h1')),
  status: text(q('#order-status')),
  parts: Array.from(document.querySelectorAll('main .card')).filter(
      c => text(c.querySelector('h2')) === 'Parts').flatMap(
      c => Array.from(c.querySelectorAll('dt')).map(dt => [text(dt), text(dt.nextElementSibling)])),
  amounts: Array.from(document.querySelectorAll('main .totals dt')).map(
      dt => [text(dt), text(dt.nextElementSibling)]),
  total: text(q('#order-total')),
};
"""


def order_state(driver) -> dict:
    return driver.execute_script(_ORDER_JS)


def expected_order(number: str, guitar: dict[str, str], method: str, currency: str) -> dict:
    totals = quote(guitar, method, currency)
    name, time, _ = SHIPPING[method]
    return {
        "path": f"/orders/{number}",
        "title": f"Order {number}",
        "status": "Wood selection",
        "parts": [[PART_TITLES[f], priced_name(f, guitar[f], currency)] for f in FIELDS],
        "amounts": [["Base price", totals["base"]], ["Additions", totals["additions"]],
                    [f"Shipping ({name}, {time})", totals["shipping"]],
                    ["Grand total", totals["grand"]]],
        "total": totals["grand"],
    }


def wait_for_order_page(driver, number: str, guitar: dict[str, str], method: str,
                        currency: str, timeout: float = WAIT) -> None:
    expected = expected_order(number, guitar, method, currency)
    wait_for_reading(driver, order_state, lambda seen: seen == expected, f"order {number}", timeout,
                     explain=lambda seen: f"expected: {expected}")
