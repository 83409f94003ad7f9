"""The kiosk in a real browser: a 1920×1080 window on /kiosk follows, live and without reloading,
another browser building a guitar ("Now building"), ordering it (the latest orders, the board,
the counters) and the order moving through the workshop's stages, which the order's own page
follows live too. The server runs with a short workshop pace (conftest's `paced_server`)."""

from __future__ import annotations

import re

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import (
    WAIT,
    build,
    description,
    dollars,
    normalized,
    open_builder,
    total_price,
    wait_live,
)
from checkout_page import wait_for_checkout, wait_for_confirmation, wait_for_path
from kiosk_page import (
    ATTRACT,
    BOARD,
    NOW_BUILDING,
    TARGETS,
    card,
    column_of,
    kiosk_state,
    open_kiosk,
    order_status,
    showing,
    wait_for_kiosk,
)

# Distinctive: nothing else orders on this server (its own fresh stock). $2,450; pickup is free.
GUITAR = {"shape": "sharpV", "color": "sky", "body": "koa", "fretboard": "ebony"}
PICKUP_STAGES = ["Wood selection", "Body shaping", "Finishing", "Setup", "Ready for pickup"]


def pace_seconds(server) -> int:
    """The server's time per stage, from its `--workshop-pace 3s`."""
    pace = server.extra_args[server.extra_args.index("--workshop-pace") + 1]
    return int(re.fullmatch(r"(\d+)s", pace).group(1))


def mark(driver) -> None:
    driver.execute_script("window.__marker = 1")


def assert_not_reloaded(driver, which: str) -> None:
    assert driver.execute_script("return window.__marker") == 1, f"the {which} was reloaded"


def in_order(seen: list, order: list) -> bool:
    """Whether `seen` goes forward through `order` (each step later than the one before)."""
    positions = [order.index(item) for item in seen]
    return all(a < b for a, b in zip(positions, positions[1:]))


def test_the_kiosk_fills_the_shop_screen(new_browser, paced_base_url):
    kiosk = new_browser(js=True)
    state = open_kiosk(kiosk, paced_base_url)
    assert state["path"] == "/kiosk"
    assert state["live"] == "connected"
    # Everything on one screen, nothing to scroll.
    assert state["in_view"] == {target: True for target in TARGETS}, state
    assert not state["scrolls"], f"the kiosk scrolls in a {state['viewport']} window"
    assert [(stage, state["board"][stage]["title"]) for stage, _ in BOARD] == \
        [(stage, f"{title} {state['board'][stage]['count']}") for stage, title in BOARD]
    assert state["heading"] in (ATTRACT, NOW_BUILDING)
    assert state["description"] and state["price"].startswith("$")
    for counter in ("ordered_today", "in_carts", "sessions"):
        assert (state[counter] or "").isdigit(), state
    # No session: the kiosk sets no cookie.
    assert kiosk.get_cookies() == []


def test_the_kiosk_follows_a_build_an_order_and_its_stages_live(new_browser, paced_server):
    paced_base_url = paced_server.base_url
    kiosk = new_browser(js=True)
    before = open_kiosk(kiosk, paced_base_url)
    mark(kiosk)
    ordered_before = int(before["ordered_today"])

    # Another browser builds a guitar: the kiosk shows it being built, as it changes.
    builder = new_browser(js=True)
    open_builder(builder, paced_base_url)
    build(builder, GUITAR)
    shown = wait_for_kiosk(kiosk, lambda s: showing(s, GUITAR),
                           f"{description(GUITAR)} being built")
    assert shown["price"] == dollars(total_price(GUITAR)) == "$2,450"

    # It adds nothing to a cart, checks out and orders.
    button = builder.find_element(By.ID, "checkout-button")
    assert normalized(button.text) == "Checkout ($2,450)"
    button.click()
    wait_for_path(builder, "/checkout")
    wait_for_checkout(builder, GUITAR, "pickup", "USD")
    wait_live(builder)
    builder.find_element(By.ID, "order-button").click()
    number, confirmation = wait_for_confirmation(builder)

    # Straight to the order's page (its link carries the key): it follows its own stream.
    builder.find_element(By.ID, "order-link").click()
    wait_for_path(builder, f"/orders/{number}")
    wait_live(builder)
    mark(builder)

    # Watch both screens until the order is ready for pickup: record every stage each shows.
    row = [description(GUITAR), "$2,450"]
    ours = card(GUITAR)
    board_seen: list = []  # the board column of the order's card, None once it has left
    page_seen: list = []
    listed: list = [None]  # the first kiosk state that lists the order

    def watch(_) -> bool:
        try:
            state = kiosk_state(kiosk)
            status = order_status(builder)
        except WebDriverException:  # a fragment swapped mid-read: read again
            return False
        if listed[0] is None and [r[:2] for r in state["orders"][:1]] == [row]:
            listed[0] = state
        column = column_of(state, ours)
        if listed[0] is not None and (not board_seen or board_seen[-1] != column):
            board_seen.append(column)
        if status and (not page_seen or page_seen[-1] != status):
            page_seen.append(status)
        finished = bool(page_seen) and page_seen[-1] == PICKUP_STAGES[-1]
        return finished and board_seen[-1:] == [None]

    timeout = len(PICKUP_STAGES) * pace_seconds(paced_server) + 2 * WAIT
    try:
        WebDriverWait(kiosk, timeout, poll_frequency=0.1).until(watch)
    except WebDriverException:
        raise AssertionError(
            f"the order did not reach {PICKUP_STAGES[-1]} on both screens within {timeout} s\n"
            f"kiosk board: {board_seen}\norder page: {page_seen}\n"
            f"kiosk now: {kiosk_state(kiosk)}") from None

    # The kiosk listed it among the latest orders and on the board, and counted it.
    first = listed[0]
    assert first is not None
    assert first["orders"][0][2] == "just now", first["orders"]
    assert int(first["ordered_today"]) == ordered_before + 1, first
    assert first["in_carts"] == "0", "nothing was added to a cart"
    assert first["empty"] is None

    # Both followed at least two stage changes live, forward and one at a time.
    stages = [stage for stage, _ in BOARD] + [None]
    assert in_order(board_seen, stages), board_seen
    assert len([column for column in board_seen if column is not None]) >= 3, board_seen
    assert in_order(page_seen, PICKUP_STAGES), page_seen
    assert len(page_seen) >= 3, page_seen
    assert_not_reloaded(kiosk, "kiosk")
    assert_not_reloaded(builder, "order page")

    # Finished: off the board, still among the latest orders; the counters moved on.
    state = wait_for_kiosk(kiosk, lambda s: int(s["sessions"] or 0) >= 1,
                           "the builder's session counted (on the next tick)")
    assert [r[:2] for r in state["orders"][:1]] == [row]
    assert column_of(state, ours) is None
    assert int(state["ordered_today"]) == ordered_before + 1
    page = builder.find_element(By.CSS_SELECTOR, "#order-stages")
    assert "Ready for pickup" in normalized(page.text)
    assert_not_reloaded(kiosk, "kiosk")
