"""The cart as the browser tests see it: the badge in every page's header, the cart page
(`GET /cart`) and the checkout of a whole cart. Expected texts are computed from builder_page's
price table; every read of a page is one atomic script, and every wait is bounded."""

from __future__ import annotations

from decimal import Decimal

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import (
    BASE_PRICE,
    FIELDS,
    WAIT,
    additions_price,
    description,
    dollars,
    format_minor,
    half_even,
    differing,
    total_price,
    wait_for_reading,
    wait_live,
)

MINUS = "\u2212"  # the discount rows read "−$654", with a real minus sign
DEFAULT_CODE = ("WELCOME10", 10)  # the code a server started without --discount offers
MAXIMUM_QUANTITY = 10


def line_id(guitar: dict[str, str]) -> str:
    """"longV-natural-mahogany-rosewood": the four raw values, as the page's ids carry them."""
    return "-".join(guitar[field] for field in FIELDS)


def count_label(count: int) -> str:
    return "Empty" if count == 0 else "1 guitar" if count == 1 else f"{count} guitars"


def discount_label(code: tuple[str, int]) -> str:
    """"WELCOME10 (10 % off)"."""
    return f"{code[0]} ({code[1]} % off)"


def guitar_count(lines: list[tuple[dict[str, str], int]]) -> int:
    return sum(quantity for _, quantity in lines)


def cart_total(lines: list[tuple[dict[str, str], int]]) -> int:
    """The cart's total in whole US dollars (every catalogue price is whole dollars)."""
    return sum(total_price(guitar) * quantity for guitar, quantity in lines)


def percent_of(minor: int, percent: int) -> int:
    """`percent` % of an amount in minor units, rounded half-to-even to the minor unit."""
    return half_even(Decimal(minor) * percent / 100)


def cart_discount(total: int, code: tuple[str, int]) -> tuple[str, str]:
    """The cart summary's discount and discounted total for a total in dollars: the kept amount is
    rounded to the cent, the discount is what it takes off; each shown in whole dollars."""
    total_minor = total * 100
    kept = percent_of(total_minor, 100 - code[1])
    return MINUS + format_minor(total_minor - kept, "USD"), format_minor(kept, "USD")


def expected_cart(lines: list[tuple[dict[str, str], int]],
                  code: tuple[str, int] | None = None) -> dict:
    """What `cart_state` must read (its keys that are listed here) for these lines, in the order
    they were first added, with `code` applied or none."""
    count = guitar_count(lines)
    total = cart_total(lines)
    # An applied code stays with the cart (emptied or not) until an order uses it.
    discount, discounted = cart_discount(total, code) if code else (None, None)
    return {
        "path": "/cart",
        "badge": str(count),
        "badge_text": f"Cart {count}",
        "lines": [[line_id(guitar), description(guitar), f"{dollars(total_price(guitar))} each",
                   str(quantity), dollars(total_price(guitar) * quantity)]
                  for guitar, quantity in lines],
        "empty": not lines,
        "count": count_label(count),
        "total": dollars(total),
        "discount_code": discount_label(code) if code else None,
        "discount": discount,
        "discounted_total": discounted,
        "checkout_label": "Check out",
        "checkout_disabled": not lines,
        "clear_button": bool(lines),
    }


def expected_cart_checkout(lines: list[tuple[dict[str, str], int]],
                           code: tuple[str, int] | None = None) -> dict:
    """What `cart_checkout_state` must read, with pickup shipping in US dollars: every row in
    cents, the discount a percentage of the guitars (not shipping), the grand total their sum."""
    count = guitar_count(lines)
    base = BASE_PRICE * count * 100
    additions = sum(additions_price(guitar) * quantity for guitar, quantity in lines) * 100
    discount = percent_of(base + additions, code[1]) if code else 0
    return {
        "path": "/checkout",
        "title": "Your guitars" if count > 1 else "Your guitar",
        "lines": [[description(guitar), "Available", str(quantity),
                   dollars(total_price(guitar)), dollars(total_price(guitar) * quantity)]
                  for guitar, quantity in lines],
        "availability": "Available",
        "base": format_minor(base, "USD"),
        "additions": format_minor(additions, "USD"),
        "discount_label": f"Discount {discount_label(code)}" if code else None,
        "discount": MINUS + format_minor(discount, "USD") if code else None,
        "shipping": "Free",
        "grand": format_minor(base + additions - discount, "USD"),
        "pending": False,
        "order_button": "Order now",
        "order_disabled": False,
    }


# --- reading the pages (works with the page's scripts off: WebDriver's own scripts still run) ---

_COMMON_JS = """
const q = s => document.querySelector(s);
const text = el => el ? (el.innerText || el.textContent || '').replace(/\\s+/g, ' ').trim() : null;
const raw = el => el ? el.textContent.replace(/\\s+/g, ' ').trim() : null;  // whatever the layout
const badgeLink = q('#cart-badge');
const notice = q('#notice');
const common = {
  path: location.pathname,
  badge: text(q('#cart-badge .badge')),
  badge_text: raw(badgeLink),
  badge_href: badgeLink ? badgeLink.getAttribute('href') : null,
  notice: notice && !notice.hidden ? text(notice) : null,
};
"""

_CART_JS = _COMMON_JS + """
const byId = id => document.getElementById(id);
const lines = Array.from(document.querySelectorAll('#cart-lines li.cart-line')).map(li => {
  const id = li.getAttribute('data-line');
  return [id, text(li.querySelector('.cart-line-description')), text(li.querySelector('.note')),
          text(byId('quantity-' + id)), text(byId('line-total-' + id))];
});
const checkout = q('#cart-checkout');
return Object.assign(common, {
  lines: lines,
  empty: !!q('#cart-empty'),
  count: text(q('#cart-count')),
  total: text(q('#cart-total')),
  discount_code: text(q('#cart-discount-code')),
  discount: text(q('#cart-discount')),
  discounted_total: text(q('#cart-discounted-total')),
  checkout_label: text(checkout),
  checkout_disabled: checkout ? checkout.disabled : null,
  clear_button: !!q('#clear-cart'),
  discount_input: q('#discount-code') ? q('#discount-code').value : null,
});
"""

_CART_CHECKOUT_JS = _COMMON_JS + """
const lines = Array.from(document.querySelectorAll('#checkout-lines tr[id^="checkout-line-"]'))
  .map(row => {
    const cells = row.querySelectorAll('td');
    const first = cells[0];
    const words = first ? Array.from(first.childNodes).filter(n => n.nodeType === Node.TEXT_NODE)
      .map(n => n.textContent).join(' ').replace(/\\s+/g, ' ').trim() : null;
    return [words, text(first && first.querySelector('.line-availability')),
            text(cells[1]), text(cells[2]), text(cells[3])];
  });
const discountLabel = q('#total-discount') ? q('#total-discount').previousElementSibling : null;
const order = q('#order-button');
return Object.assign(common, {
  title: text(q('main h1')),
  lines: lines,
  line_ids: Array.from(document.querySelectorAll('#checkout-lines tr[id^="checkout-line-"]'))
    .map(row => row.id),
  estimate: text(q('#estimate')),
  availability: text(q('#availability')),
  base: text(q('#total-base')),
  additions: text(q('#total-additions')),
  discount_label: discountLabel ? text(discountLabel) : null,
  discount: text(q('#total-discount')),
  shipping: text(q('#total-shipping')),
  grand: text(q('#grand-total')),
  pending: !!q('#rates-loading'),
  order_button: text(order),
  order_disabled: order ? order.disabled : null,
  congratulations: text(q('#congratulations')),
  order_number: text(q('#order-number')),
  confirmation_text: text(q('.confirmation')),
});
"""


def page_badge(driver) -> dict:
    """The header's badge and the notice, on any page."""
    return driver.execute_script(_COMMON_JS + "return common;")


def cart_state(driver) -> dict:
    return driver.execute_script(_CART_JS)


def cart_checkout_state(driver) -> dict:
    return driver.execute_script(_CART_CHECKOUT_JS)


def _wait_until(driver, read, expected: dict, describe: str, timeout: float) -> dict:
    """Reads with `read` until every key of `expected` reads as expected; returns that reading, or
    fails naming the keys that differ."""
    return wait_for_reading(
        driver, read, lambda seen: all(seen.get(key) == value for key, value in expected.items()),
        describe, timeout, explain=differing(expected))


def wait_for_cart(driver, lines: list[tuple[dict[str, str], int]],
                  code: tuple[str, int] | None = None, timeout: float = WAIT) -> dict:
    """Waits until the cart page shows exactly these lines, totals, discount and badge."""
    return _wait_until(driver, cart_state, expected_cart(lines, code),
                       f"the cart {[(line_id(g), n) for g, n in lines]} with {code}", timeout)


def wait_for_badge(driver, count: int, timeout: float = WAIT) -> dict:
    """Waits until the page's header badge (on any page) says `count`."""
    return _wait_until(driver, page_badge, {"badge": str(count), "badge_text": f"Cart {count}",
                                            "badge_href": "/cart"},
                       f"a cart badge of {count}", timeout)


def wait_for_notice(driver, message: str, timeout: float = WAIT) -> dict:
    """Waits until the page's notice (`#notice`) is shown with `message`."""
    return _wait_until(driver, page_badge, {"notice": message}, f"the notice {message!r}",
                       timeout)


def wait_for_cart_checkout(driver, lines: list[tuple[dict[str, str], int]],
                           code: tuple[str, int] | None = None, timeout: float = WAIT) -> dict:
    """Waits until the checkout shows these cart lines priced with pickup in US dollars."""
    expected = expected_cart_checkout(lines, code)
    state = _wait_until(driver, cart_checkout_state, expected,
                        f"the checkout of {[(line_id(g), n) for g, n in lines]} with {code}",
                        timeout)
    assert state["line_ids"] == [f"checkout-line-{i}" for i in range(len(lines))], state
    return state


def open_cart(driver, base_url: str, live: bool | None = None) -> None:
    """Loads `/cart` and waits for its summary; with JS on (default for a JS driver), also for
    the event stream."""
    driver.get(base_url + "/cart")
    WebDriverWait(driver, WAIT).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, "#cart-summary #cart-total")))
    if live is None:
        live = getattr(driver, "_luthier_js", True)
    if live:
        wait_live(driver)


def click_button(driver, button_id: str, expected_text: str | None = None,
                 timeout: float = WAIT) -> None:
    """Clicks a button once it is there and enabled (a live form disables its button while its
    post is out). Retries while the page swaps the fragment for a freshly rendered one."""
    locator = (By.ID, button_id)

    def click(d) -> bool:
        element = EC.element_to_be_clickable(locator)(d)
        if not element:
            return False
        if expected_text is not None:
            shown = " ".join((element.text or element.get_attribute("value") or "").split())
            assert shown == expected_text, f"#{button_id} reads {shown!r}, not {expected_text!r}"
        element.click()
        return True

    WebDriverWait(driver, timeout, poll_frequency=0.1,
                  ignored_exceptions=(StaleElementReferenceException,)).until(
        click, f"#{button_id} not clickable within {timeout} s")


def type_discount_code(driver, code: str) -> None:
    """Replaces whatever the discount field holds with `code`."""
    field = WebDriverWait(driver, WAIT).until(EC.element_to_be_clickable((By.ID, "discount-code")))
    field.clear()
    field.send_keys(code)
    assert field.get_attribute("value") == code


def wait_for_discount_field(driver, value: str, timeout: float = WAIT) -> dict:
    """Waits until the discount field holds `value` and its button is usable again: a code the
    server took empties the field once the post's answer is in, which can come after the event
    stream has already patched the summary."""
    def read(d):
        state = d.execute_script(
            "const f = document.getElementById('discount-code');"
            "const b = document.getElementById('apply-discount');"
            "return {value: f ? f.value : null, enabled: b ? !b.disabled : null};")
        return state

    return _wait_until(driver, read, {"value": value, "enabled": True},
                       f"a discount field holding {value!r}", timeout)
