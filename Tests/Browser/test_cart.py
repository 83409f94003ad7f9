"""The cart in a real browser: "Add to cart" on the builder, the badge in every page's header, the
cart page's quantities and discount code, and checking out and ordering a whole cart — with two
tabs of one session following each other live (JavaScript on, no reloads), and with plain form
posts (JavaScript off)."""

from __future__ import annotations

import re

from urllib.parse import urlparse

from selenium.webdriver.common.by import By

from builder_page import (
    DEFAULT,
    FIELDS,
    build,
    choose_radio,
    open_builder,
    submit_and_wait_for_reload,
    total_price,
    wait_for_guitar,
    wait_live,
)
from cart_page import (
    DEFAULT_CODE,
    MINUS,
    cart_discount,
    cart_state,
    cart_total,
    click_button,
    expected_cart_checkout,
    line_id,
    open_cart,
    type_discount_code,
    wait_for_badge,
    wait_for_cart,
    wait_for_cart_checkout,
    wait_for_discount_field,
    wait_for_notice,
)
from checkout_page import (
    ESTIMATE,
    order_state,
    submit_and_wait_for_page,
    wait_for_confirmation,
    wait_for_path,
    wait_for_state,
)

LONG_V = {**DEFAULT, "shape": "longV"}  # $2,075
# Plentiful woods only (the browser tests share one server and its stock): $2,230.
OTHER = {"shape": "sharpV", "color": "earth", "body": "swampAsh", "fretboard": "rosewood"}
UNKNOWN_CODE = "NOTACODE"
UNKNOWN_CODE_MESSAGE = f"'{UNKNOWN_CODE}' is not a discount code we know."


def mark_page(driver) -> None:
    driver.execute_script("window.__marker = 1")


def assert_no_reload(driver, which: str) -> None:
    assert driver.execute_script("return window.__marker") == 1, f"{which} was reloaded"


def add_to_cart(driver, badge_after: int) -> None:
    """Presses "Add to cart" (JS on) and waits for the page's own badge to count it."""
    click_button(driver, "add-to-cart", "Add to cart")
    wait_for_badge(driver, badge_after)


# --- the prices the tests expect (no browser) ---------------------------------------------------

def test_cart_price_helpers_follow_the_price_table():
    assert line_id(LONG_V) == "longV-natural-mahogany-rosewood"
    assert total_price(LONG_V) == 2075
    assert total_price(OTHER) == 2230
    assert cart_total([(LONG_V, 2), (OTHER, 1)]) == 6380
    assert cart_total([(LONG_V, 1), (OTHER, 2)]) == 6535
    # 10 % of $6,535 is $653.50 and leaves $5,881.50: shown in whole dollars, ties to even
    assert cart_discount(6535, DEFAULT_CODE) == (f"{MINUS}$654", "$5,882")
    assert cart_discount(6380, DEFAULT_CODE) == (f"{MINUS}$638", "$5,742")
    checkout = expected_cart_checkout([(LONG_V, 1), (OTHER, 2)], DEFAULT_CODE)
    assert [checkout[k] for k in ("base", "additions", "discount", "shipping", "grand")] == \
        ["$6,000", "$535", f"{MINUS}$654", "Free", "$5,882"]
    assert checkout["discount_label"] == "Discount WELCOME10 (10 % off)"


# --- (a) JS on: two tabs of one session, from "Add to cart" to the order ------------------------

def test_two_tabs_share_the_cart_live_through_checkout_and_order(driver, base_url):
    d = driver
    open_builder(d, base_url)
    tab_a = d.current_window_handle
    wait_for_guitar(d, DEFAULT)
    wait_for_badge(d, 0)
    d.switch_to.new_window("tab")  # same browser, same cookies, same session
    tab_b = d.current_window_handle
    open_cart(d, base_url)
    wait_for_cart(d, [])
    mark_page(d)

    def in_b(lines, code=None):
        d.switch_to.window(tab_b)
        state = wait_for_cart(d, lines, code)
        assert_no_reload(d, "the cart tab")
        return state

    def in_a(badge):
        d.switch_to.window(tab_a)
        wait_for_badge(d, badge)
        assert_no_reload(d, "the builder tab")

    # tab A builds a Long V and adds it twice; tab B's lines and badge follow each time
    d.switch_to.window(tab_a)
    wait_live(d)
    mark_page(d)
    build(d, LONG_V)
    add_to_cart(d, 1)
    in_b([(LONG_V, 1)])
    in_a(1)
    add_to_cart(d, 2)
    in_b([(LONG_V, 2)])

    # another configuration is another line, after the first
    d.switch_to.window(tab_a)
    build(d, OTHER, shown=LONG_V)
    add_to_cart(d, 3)
    assert_no_reload(d, "the builder tab")
    lines = [(LONG_V, 2), (OTHER, 1)]
    in_b(lines)

    # tab B changes quantities; tab A's badge follows
    click_button(d, f"increment-{line_id(OTHER)}")
    lines = [(LONG_V, 2), (OTHER, 2)]
    in_b(lines)
    in_a(4)
    d.switch_to.window(tab_b)
    click_button(d, f"decrement-{line_id(LONG_V)}")
    lines = [(LONG_V, 1), (OTHER, 2)]
    in_b(lines)
    in_a(3)

    # the discount code, in tab B
    d.switch_to.window(tab_b)
    type_discount_code(d, DEFAULT_CODE[0])
    click_button(d, "apply-discount", "Apply")
    state = in_b(lines, DEFAULT_CODE)
    assert state["discounted_total"] == "$5,882", state
    assert state["notice"] is None, state
    wait_for_discount_field(d, "")  # a code the server took clears the field

    # an unknown code: a notice says so, and the applied code stays
    type_discount_code(d, UNKNOWN_CODE)
    click_button(d, "apply-discount", "Apply")
    wait_for_notice(d, UNKNOWN_CODE_MESSAGE)
    wait_for_discount_field(d, UNKNOWN_CODE)  # a refused one stays, to be corrected
    in_b(lines, DEFAULT_CODE)

    # check out the whole cart: both tabs go to the checkout by themselves
    click_button(d, "cart-checkout", "Check out")
    wait_for_path(d, "/checkout")
    state = wait_for_cart_checkout(d, lines, DEFAULT_CODE)
    assert ESTIMATE.fullmatch(state["estimate"] or ""), f"estimate reads {state['estimate']!r}"
    assert state["badge"] == "3", state
    grand = state["grand"]
    assert grand == "$5,882", state
    wait_live(d)
    d.switch_to.window(tab_a)
    wait_for_path(d, "/checkout")
    wait_for_cart_checkout(d, lines, DEFAULT_CODE)
    wait_live(d)
    mark_page(d)

    # order in tab B: the congratulations, an empty cart, and a badge of 0 in both tabs
    d.switch_to.window(tab_b)
    click_button(d, "order-button", "Order now")
    number, state = wait_for_confirmation(d)
    assert f"({grand})" in state["confirmation_text"], state["confirmation_text"]
    order_link = state["order_link"]
    wait_for_badge(d, 0)
    d.switch_to.window(tab_a)
    wait_for_state(d, lambda s: s["order_number"] == number, f"order {number}")
    wait_for_badge(d, 0)
    assert_no_reload(d, "the checkout in tab A")

    # the order holds the cart's lines, discount and total
    d.switch_to.window(tab_b)
    d.get(base_url + order_link)
    wait_for_path(d, f"/orders/{number}")
    order = order_state(d)
    assert order["title"] == f"Order {number}", order
    assert order["status"] == "Wood selection", order
    assert order["amounts"] == [
        ["Base price", "$6,000"], ["Additions", "$535"],
        ["Discount (WELCOME10)", f"{MINUS}$654"],
        ["Shipping (Pickup, As soon as ready)", "Free"], ["Grand total", grand]], order
    assert order["total"] == grand

    # and the cart is empty, its code used up, in both tabs
    for tab in (tab_b, tab_a):
        d.switch_to.window(tab)
        open_cart(d, base_url)
        state = wait_for_cart(d, [])
        assert state["empty"], state


# --- (b) JS off: plain form posts, post/redirect/get --------------------------------------------

def test_nojs_add_to_cart_and_change_quantities_with_plain_forms(nojs_driver, base_url):
    d = nojs_driver
    guitar = {"shape": "chunky", "color": "sky", "body": "mahogany", "fretboard": "rosewood"}
    line = line_id(guitar)
    open_builder(d, base_url)
    wait_for_badge(d, 0)
    for field in FIELDS:
        choose_radio(d, field, guitar[field])
    submit_and_wait_for_reload(d, "build-submit")
    wait_for_guitar(d, guitar)

    # "Add to cart" posts /cart/items and lands back on the builder, the badge counting it
    form = d.find_element(By.ID, "add-to-cart-form")
    assert (form.get_attribute("method") or "").lower() == "post"
    assert urlparse(form.get_attribute("action")).path == "/cart/items"
    for count in (1, 2):
        submit_and_wait_for_page(d, (By.ID, "add-to-cart"), "form#build-form")
        assert urlparse(d.current_url).path == "/", "post/redirect/get must land on /"
        wait_for_badge(d, count)
        wait_for_guitar(d, guitar)

    # the badge is a plain link to the cart
    submit_and_wait_for_page(d, (By.ID, "cart-badge"), "#cart-summary #cart-total")
    wait_for_cart(d, [(guitar, 2)])

    # quantities: each button is its own form post, answered with the cart again
    for button, quantity in ((f"increment-{line}", 3), (f"decrement-{line}", 2)):
        submit_and_wait_for_page(d, (By.ID, button), "#cart-summary #cart-total")
        assert urlparse(d.current_url).path == "/cart", f"{button} must land on /cart"
        wait_for_cart(d, [(guitar, quantity)])

    # a discount code, posted as a plain form
    type_discount_code(d, DEFAULT_CODE[0])
    submit_and_wait_for_page(d, (By.ID, "apply-discount"), "#cart-summary #cart-total")
    assert urlparse(d.current_url).path == "/cart"
    wait_for_cart(d, [(guitar, 2)], DEFAULT_CODE)

    # an unknown one: an error page saying why; the cart keeps its code
    type_discount_code(d, UNKNOWN_CODE)
    submit_and_wait_for_page(d, (By.ID, "apply-discount"), "main h1")
    assert d.find_element(By.CSS_SELECTOR, "main h1").text.strip() == "Sorry, that didn't work"
    message = d.find_element(By.CSS_SELECTOR, ".error-message")
    assert message.get_attribute("data-status") == "422"
    assert " ".join(message.text.split()) == UNKNOWN_CODE_MESSAGE
    open_cart(d, base_url)
    wait_for_cart(d, [(guitar, 2)], DEFAULT_CODE)

    # removing the line empties the cart (an empty cart shows no discount); the builder's badge
    # says so too
    submit_and_wait_for_page(d, (By.ID, f"remove-{line}"), "#cart-summary #cart-total")
    state = wait_for_cart(d, [])
    assert state["empty"], state
    open_builder(d, base_url)
    wait_for_badge(d, 0)
    wait_for_guitar(d, guitar)
    assert cart_state(d)["lines"] == []


# --- (c) a change to one line touches that line only ----------------------------------------------

THIRD = {"shape": "casual", "color": "sky", "body": "swampAsh", "fretboard": "rosewood"}


def mark_lines(driver) -> None:
    driver.execute_script("document.querySelectorAll('#cart-lines li.cart-line')"
                          ".forEach((li) => { li.__kept = true; })")


def kept_lines(driver) -> list[tuple[str, bool]]:
    """Each line's id, and whether it is still the element it was when marked."""
    return [tuple(line) for line in driver.execute_script(
        "return Array.from(document.querySelectorAll('#cart-lines li.cart-line'))"
        ".map((li) => [li.getAttribute('data-line'), li.__kept === true]);")]


def test_a_line_change_moves_only_that_line(driver, base_url):
    d = driver
    open_builder(d, base_url)
    tab_a = d.current_window_handle
    wait_live(d)
    shown = DEFAULT
    for count, guitar in enumerate((LONG_V, OTHER, THIRD), start=1):
        build(d, guitar, shown=shown)
        add_to_cart(d, count)
        shown = guitar
    d.switch_to.new_window("tab")
    tab_b = d.current_window_handle
    open_cart(d, base_url)
    lines = [(LONG_V, 1), (OTHER, 1), (THIRD, 1)]
    wait_for_cart(d, lines)
    wait_live(d)
    mark_page(d)
    mark_lines(d)
    ids = [line_id(guitar) for guitar, _ in lines]

    # One more of the middle line: every line is the element it was, the middle one's count moved.
    click_button(d, f"increment-{line_id(OTHER)}")
    wait_for_cart(d, [(LONG_V, 1), (OTHER, 2), (THIRD, 1)])
    assert kept_lines(d) == [(id, True) for id in ids]

    # A fourth line, added in the other tab, comes last; the three stay as they were.
    fourth = {**OTHER, "color": "sky"}
    d.switch_to.window(tab_a)
    build(d, fourth, shown=shown)
    add_to_cart(d, 5)
    d.switch_to.window(tab_b)
    wait_for_cart(d, [(LONG_V, 1), (OTHER, 2), (THIRD, 1), (fourth, 1)])
    assert kept_lines(d) == [(id, True) for id in ids] + [(line_id(fourth), False)]

    # The first line removed: the others stay as they were.
    click_button(d, f"remove-{line_id(LONG_V)}")
    wait_for_cart(d, [(OTHER, 2), (THIRD, 1), (fourth, 1)])
    assert kept_lines(d) == [(ids[1], True), (ids[2], True), (line_id(fourth), False)]
    assert_no_reload(d, "the cart tab")

    # And the tab reads as a cart page loaded now.
    lines_html = d.execute_script("return document.getElementById('cart-lines').innerHTML")
    d.switch_to.new_window("tab")
    open_cart(d, base_url)
    fresh_html = d.execute_script("return document.getElementById('cart-lines').innerHTML")
    assert tags_only(lines_html) == tags_only(fresh_html)


def tags_only(html: str) -> str:
    """Markup without the white space between tags (a line put by a patch has no line end after it)."""
    return re.sub(r">\s+<", "><", html).strip()


# --- (d) what a person types survives a patch -----------------------------------------------------

def field_state(driver) -> dict:
    return driver.execute_script("""
      const field = document.getElementById('discount-code');
      return {value: field.value, start: field.selectionStart, end: field.selectionEnd,
              focused: document.activeElement === field, same: field.__typedIn === true,
              total: document.getElementById('cart-total').textContent.trim()};""")


def test_typed_text_survives_a_patch_of_its_fragment(driver, base_url):
    d = driver
    open_builder(d, base_url)
    tab_a = d.current_window_handle
    wait_live(d)
    add_to_cart(d, 1)
    d.switch_to.new_window("tab")
    open_cart(d, base_url)
    wait_for_cart(d, [(DEFAULT, 1)])
    wait_live(d)
    field = d.find_element(By.ID, "discount-code")
    field.click()
    field.send_keys("WELC")
    d.execute_script("const f = document.getElementById('discount-code'); f.__typedIn = true;"
                     " f.setSelectionRange(1, 3);")
    before = field_state(d)
    assert before["value"] == "WELC" and before["focused"], before

    # The other tab adds a second guitar: this tab's summary (the total, beside the field) is patched.
    d.switch_to.window(tab_a)
    add_to_cart(d, 2)
    d.switch_to.window(d.window_handles[-1])
    wait_for_cart(d, [(DEFAULT, 2)])
    after = field_state(d)
    assert after["total"] != before["total"], after
    assert after == {**before, "total": after["total"]}, after
