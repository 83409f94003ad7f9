"""The kiosk (`GET /kiosk`) as the browser tests see it: the screen it is made for, one atomic read
of everything it shows, the texts it shows for a guitar and an order, and bounded waits on it."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import WAIT, description, name, wait_for_reading, wait_live

KIOSK_SIZE = (1920, 1080)  # the shop's big screen
TARGETS = ("kiosk-showcase", "kiosk-orders", "kiosk-board", "kiosk-counters")
# The board's columns, one per stage before the order is finished, in the workshop's order.
BOARD = (("woodSelection", "Wood selection"), ("bodyShaping", "Body shaping"),
         ("finishing", "Finishing"), ("setup", "Setup"))
NOW_BUILDING = "Now building"
ATTRACT = "From the workshop"


def card(guitar: dict[str, str]) -> str:
    """A guitar's card on the board: "Sky Sharp V · Koa"."""
    return (f"{name('color', guitar['color'])} {name('shape', guitar['shape'])} · "
            f"{name('body', guitar['body'])}")


# Everything the kiosk shows, read at once (the fragments are swapped while a test reads them).
_STATE_JS = """
const q = s => document.querySelector(s);
const text = el => el ? (el.textContent || '').replace(/\\s+/g, ' ').trim() : null;
const img = q('#kiosk-showcase img.guitar-artwork');
const board = {};
for (const column of document.querySelectorAll('#kiosk-board .kiosk-column')) {
  board[column.id.replace(/^board-/, '')] = {
    title: text(column.querySelector('h3')),
    count: text(column.querySelector('.kiosk-count')),
    cards: Array.from(column.querySelectorAll('.kiosk-card')).map(text),
  };
}
const inView = id => {
  const el = document.getElementById(id);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0
    && r.right <= window.innerWidth + 0.5 && r.bottom <= window.innerHeight + 0.5;
};
return {
  path: location.pathname,
  live: document.documentElement.dataset.live || null,
  heading: text(q('#kiosk-heading')),
  attract: !!q('#kiosk-heading.attract'),
  description: text(q('#kiosk-description')),
  price: text(q('#kiosk-price')),
  picture: img ? Object.fromEntries(['shape', 'color', 'body', 'fretboard'].map(
      f => [f, img.getAttribute('data-' + f)])) : null,
  orders: Array.from(document.querySelectorAll('#kiosk-orders .kiosk-order')).map(row => [
    text(row.querySelector('.kiosk-order-description')),
    text(row.querySelector('.kiosk-order-amount')),
    text(row.querySelector('.kiosk-order-ago'))]),
  empty: text(q('#kiosk-orders .kiosk-empty')),
  board: board,
  ordered_today: text(q('#counter-ordered-today')),
  in_carts: text(q('#counter-in-carts')),
  sessions: text(q('#counter-sessions')),
  in_view: Object.fromEntries(%s.map(id => [id, inView(id)])),
  viewport: [window.innerWidth, window.innerHeight],
  scrolls: document.documentElement.scrollHeight > window.innerHeight + 1,
};
""" % list(TARGETS)


def kiosk_state(driver) -> dict:
    return driver.execute_script(_STATE_JS)


def open_kiosk(driver, base_url: str) -> dict:
    """Sizes the window like the shop's screen, loads `/kiosk`, waits for its stream; returns
    what it shows."""
    driver.set_window_size(*KIOSK_SIZE)
    driver.get(base_url + "/kiosk")
    WebDriverWait(driver, WAIT).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, "#kiosk-board .kiosk-column")))
    wait_live(driver)
    return kiosk_state(driver)


def wait_for_kiosk(driver, accept, describe: str, timeout: float = WAIT) -> dict:
    """Reads `kiosk_state` until `accept(state)` holds; returns that state."""
    return wait_for_reading(driver, kiosk_state, accept, describe, timeout)


def showing(state: dict, guitar: dict[str, str]) -> bool:
    """Whether the kiosk shows `guitar` as the one being built."""
    return (state["heading"] == NOW_BUILDING and not state["attract"]
            and state["description"] == description(guitar) and state["picture"] == guitar)


def column_of(state: dict, text: str) -> str | None:
    """The board column (stage id) a card reading `text` is in, if it is on the board."""
    for stage, _ in BOARD:
        if text in state["board"].get(stage, {}).get("cards", []):
            return stage
    return None


def order_status(driver) -> str | None:
    """What an order page says its order is at."""
    return driver.execute_script(
        "const el = document.querySelector('#order-status');"
        "return el ? (el.innerText || el.textContent || '').replace(/\\s+/g, ' ').trim() : null;")
