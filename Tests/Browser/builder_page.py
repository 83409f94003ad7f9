"""The build page (`GET /`) as the browser tests see it: the option table (from DESIGN.md), the
expected texts computed from it, and bounded waits that read the page's state."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from selenium.common.exceptions import (
    ElementClickInterceptedException,
    ElementNotInteractableException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 10  # seconds: the bound of every wait

BASE_PRICE = 2000
FIELDS = ("shape", "color", "body", "fretboard")

# field -> [(raw value, display name, price in USD)], in display order; the first is the default
OPTIONS: dict[str, list[tuple[str, str, int]]] = {
    "shape": [("casual", "Casual", 0), ("chunky", "Chunky", 0),
              ("longV", "Long V", 75), ("sharpV", "Sharp V", 100)],
    "color": [("natural", "Natural", 0), ("sky", "Sky", 150),
              ("dusk", "Dusk", 0), ("earth", "Earth", 50)],
    "body": [("mahogany", "Mahogany", 0), ("blackLimba", "Black Limba", 150),
             ("swampAsh", "Swamp Ash", 80), ("koa", "Koa", 100)],
    "fretboard": [("rosewood", "Rosewood", 0), ("birdseyeMaple", "Birdseye Maple", 80),
                  ("ebony", "Ebony", 100), ("blackLimba", "Black Limba", 120)],
}
DEFAULT = {field: OPTIONS[field][0][0] for field in FIELDS}

# shipping method -> (display name, delivery time, price in USD), in the checkout's order
SHIPPING: dict[str, tuple[str, str, int]] = {
    "pickup": ("Pickup", "As soon as ready", 0),
    "ground": ("Ground", "2-6 weeks", 100),
    "express": ("Express", "1 week", 250),
}

# currency code -> (symbol, embedded units per US dollar), in the picker's order
CURRENCIES: dict[str, tuple[str, Decimal]] = {
    "USD": ("$", Decimal("1")),
    "EUR": ("€", Decimal("0.83")),
    "GBP": ("£", Decimal("0.71")),
    "ILS": ("₪", Decimal("3.25")),
}
MINOR_PER_MAJOR = 100  # every shop currency has two-digit minor units


def _option(field: str, value: str) -> tuple[str, str, int]:
    for option in OPTIONS[field]:
        if option[0] == value:
            return option
    raise KeyError(f"{field}={value}")


def name(field: str, value: str) -> str:
    return _option(field, value)[1]


def option_price(field: str, value: str) -> int:
    return _option(field, value)[2]


def dollars(amount: int) -> str:
    return f"${amount:,}"


def label_text(field: str, value: str) -> str:
    """"Long V (+$75)", or just "Casual" for an option that costs nothing extra."""
    price = option_price(field, value)
    return f"{name(field, value)} (+{dollars(price)})" if price else name(field, value)


def total_price(guitar: dict[str, str]) -> int:
    return BASE_PRICE + sum(option_price(field, guitar[field]) for field in FIELDS)


def additions_price(guitar: dict[str, str]) -> int:
    return total_price(guitar) - BASE_PRICE


def shipping_price(method: str) -> int:
    return SHIPPING[method][2]


# --- money in other currencies, as the server computes it ----------------------------------------

def half_even(exact: Decimal) -> int:
    """`exact` rounded to a whole number, ties to the even neighbour (812.5 → 812, 813.5 → 814)."""
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def to_minor(dollars: int, currency: str) -> int:
    """Whole dollars in `currency`'s minor units: the exact product, rounded half-to-even once."""
    return half_even(Decimal(dollars * MINOR_PER_MAJOR) * CURRENCIES[currency][1])


def format_minor(minor: int, currency: str) -> str:
    """"€1,234": symbol and whole units (rounded half-to-even), thousands grouped with commas."""
    whole = half_even(Decimal(minor) / MINOR_PER_MAJOR)
    return f"{'-' if whole < 0 else ''}{CURRENCIES[currency][0]}{abs(whole):,}"


def money(dollars: int, currency: str) -> str:
    """One dollar price as the page shows it in `currency`."""
    return format_minor(to_minor(dollars, currency), currency)


def quote(guitar: dict[str, str], method: str, currency: str) -> dict[str, str]:
    """The totals rows: each row converted to minor units on its own, the grand total their sum
    (so the page adds up), every figure shown in whole units; a free shipping row reads "Free"."""
    base = to_minor(BASE_PRICE, currency)
    additions = to_minor(additions_price(guitar), currency)
    shipping = to_minor(shipping_price(method), currency)
    return {
        "base": format_minor(base, currency),
        "additions": format_minor(additions, currency),
        "shipping": format_minor(shipping, currency) if shipping else "Free",
        "grand": format_minor(base + additions + shipping, currency),
    }


def priced_name(field: str, value: str, currency: str) -> str:
    """"Long V (+€62)" on the checkout, or just "Casual" for a part that costs nothing extra."""
    price = option_price(field, value)
    return f"{name(field, value)} (+{money(price, currency)})" if price else name(field, value)


def description(guitar: dict[str, str]) -> str:
    return (f"{name('color', guitar['color'])} {name('shape', guitar['shape'])} with "
            f"{name('body', guitar['body'])} body and {name('fretboard', guitar['fretboard'])} "
            "fretboard")


def expected_view(guitar: dict[str, str]) -> dict:
    """What `page_state` must read for this guitar."""
    text = description(guitar)
    return {
        "picture": dict(guitar),
        "aria": text,
        # The picture is an image at its own address: it has loaded, not only been named.
        "pictureLoaded": True,
        "description": text,
        "checkout": f"Checkout ({dollars(total_price(guitar))})",
        "checked": dict(guitar),
    }


# One atomic read of everything the build page shows about the guitar (works with JS off too:
# WebDriver's scripts run even when the page's own are disabled).
_STATE_JS = """
const q = s => document.querySelector(s);
const text = el => {
  if (!el) return null;
  const t = (el.innerText || el.value || '').replace(/\\s+/g, ' ').trim();
  return t;
};
const img = q('#guitar-picture img.guitar-artwork');
const fields = ['shape', 'color', 'body', 'fretboard'];
const picture = {}, checked = {};
for (const f of fields) {
  picture[f] = img ? img.getAttribute('data-' + f) : null;
  const radio = q('form#build-form input[name="' + f + '"]:checked');
  checked[f] = radio ? radio.value : null;
}
return {
  picture: picture,
  aria: img ? img.getAttribute('alt') : null,
  pictureLoaded: !!img && img.complete && img.naturalWidth > 0,
  description: text(q('#guitar-description')),
  checkout: text(q('#checkout-button')),
  checked: checked,
};
"""


def page_state(driver) -> dict:
    return driver.execute_script(_STATE_JS)


def wait_for_reading(driver, read, accept, describe: str, timeout: float = WAIT, explain=None):
    """Reads the page with `read` every 0.1 s until `accept(reading)` holds, and returns that
    reading. A read that fails mid-swap (a fragment replaced, a navigation) counts as unreadable,
    not as an error. On time-out it fails naming `describe`, the last reading and, when `explain`
    is given, what `explain(last reading)` says of it."""
    seen: list = [None]

    def matches(d):
        try:
            seen[0] = read(d)
        except WebDriverException as error:
            seen[0] = f"<unreadable: {type(error).__name__}>"
            return False
        return seen[0] if accept(seen[0]) else False

    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(matches)
    except WebDriverException:
        why = f"\n{explain(seen[0])}" if explain and isinstance(seen[0], dict) else ""
        raise AssertionError(
            f"the page did not show {describe} within {timeout} s{why}\nlast seen: {seen[0]}") from None


def differing(expected: dict):
    """An `explain` for `wait_for_reading`: the keys whose reading differs from `expected`."""
    return lambda seen: "differing (seen, expected): " + str(
        {key: (seen.get(key), value) for key, value in expected.items() if seen.get(key) != value})


def wait_for_guitar(driver, guitar: dict[str, str], timeout: float = WAIT) -> None:
    """Waits until picture, description, price and checked radios all show `guitar`."""
    expected = expected_view(guitar)
    wait_for_reading(driver, page_state, lambda seen: seen == expected, str(guitar), timeout,
                     explain=lambda seen: f"expected: {expected}")


def wait_live(driver, timeout: float = WAIT) -> None:
    """Waits until the page's script has its event stream open."""
    try:
        WebDriverWait(driver, timeout, poll_frequency=0.1).until(
            lambda d: d.execute_script("return document.documentElement.dataset.live")
            == "connected")
    except WebDriverException:
        live = driver.execute_script("return document.documentElement.dataset.live")
        raise AssertionError(
            f"event stream not connected within {timeout} s (data-live={live!r})") from None


def open_builder(driver, base_url: str, live: bool | None = None) -> None:
    """Loads `/` and waits for the form; with JS on (default for a JS driver), also for the stream."""
    driver.get(base_url + "/")
    WebDriverWait(driver, WAIT).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, "form#build-form")))
    if live is None:
        live = getattr(driver, "_luthier_js", True)
    if live:
        wait_live(driver)


def label(driver, field: str, value: str):
    return driver.find_element(By.CSS_SELECTOR, f'label[for="{field}-{value}"]')


def normalized(text: str) -> str:
    return " ".join(text.split())


def build(driver, guitar: dict[str, str], shown: dict[str, str] = DEFAULT) -> None:
    """Clicks, one field at a time, the labels that turn the open builder's `shown` guitar into
    `guitar` (JS on), waiting for the page to show each step."""
    shown = dict(shown)
    for field in FIELDS:
        if guitar[field] != shown[field]:
            click_label(driver, field, guitar[field])
            shown[field] = guitar[field]
            wait_for_guitar(driver, shown)


def click_label(driver, field: str, value: str) -> None:
    """Picks an option as a person does: by clicking its label (checking what it says first).
    Retries while the page swaps the picker for a freshly rendered one."""
    locator = (By.CSS_SELECTOR, f'label[for="{field}-{value}"]')

    def click(d) -> bool:
        element = EC.element_to_be_clickable(locator)(d)
        if not element:
            return False
        # A wood out of stock is still a choice, marked as such.
        assert normalized(element.text).removesuffix("(out of stock)").strip() == label_text(field, value)
        element.click()
        return True

    WebDriverWait(driver, WAIT, poll_frequency=0.1,
                  ignored_exceptions=(StaleElementReferenceException,)).until(
        click, f"label {field}-{value} not clickable within {WAIT} s")


def choose_radio(driver, field: str, value: str) -> None:
    """Checks the option's radio (through its label when the radio itself is styled away)."""
    radio = driver.find_element(By.ID, f"{field}-{value}")
    try:
        if not radio.is_displayed():
            raise ElementNotInteractableException("radio hidden")
        radio.click()
    except (ElementNotInteractableException, ElementClickInterceptedException):
        click_label(driver, field, value)
    WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: d.find_element(By.ID, f"{field}-{value}").is_selected(),
        f"radio {field}-{value} not selected within {WAIT} s")


def submit_and_wait_for_reload(driver, button_id: str) -> None:
    """Clicks a form's button in a page without JS and waits for the next page to arrive."""
    old_page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.ID, button_id).click()
    # While the page navigates, ChromeDriver can answer the staleness check with an "inspector
    # error" instead of a stale-element error; that only means "not settled yet", so retry.
    WebDriverWait(driver, WAIT, ignored_exceptions=(WebDriverException,)).until(
        EC.staleness_of(old_page))
    WebDriverWait(driver, WAIT).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, "form#build-form")))
