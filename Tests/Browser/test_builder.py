"""The build page in a real browser, with JavaScript on (live updates over server-sent events,
no reloads) and off (plain form posts, post/redirect/get)."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from selenium.webdriver.common.by import By

from builder_page import (
    DEFAULT,
    FIELDS,
    OPTIONS,
    choose_radio,
    click_label,
    dollars,
    label,
    label_text,
    normalized,
    open_builder,
    page_state,
    submit_and_wait_for_reload,
    total_price,
    wait_for_guitar,
    wait_live,
)


def changed(guitar: dict[str, str], **changes: str) -> dict[str, str]:
    return {**guitar, **changes}


def assert_no_reload(driver) -> None:
    assert driver.execute_script("return window.__marker") == 1, "the page was reloaded"


def mark_page(driver) -> None:
    driver.execute_script("window.__marker = 1")


def path_of(url: str) -> str:
    return urlparse(url).path


# --- the price table itself (no browser) -------------------------------------------------------

def test_price_helpers_follow_the_design():
    assert total_price(DEFAULT) == 2000
    assert dollars(total_price(DEFAULT)) == "$2,000"
    most = {field: max(OPTIONS[field], key=lambda o: o[2])[0] for field in FIELDS}
    assert total_price(most) == 2520
    assert label_text("shape", "longV") == "Long V (+$75)"
    assert label_text("shape", "casual") == "Casual"


# --- the page as served ------------------------------------------------------------------------

def test_page_structure_without_js(nojs_driver, base_url):
    d = nojs_driver
    open_builder(d, base_url)
    assert "js" not in (d.find_element(By.TAG_NAME, "html").get_attribute("class") or "").split()
    assert d.find_element(By.TAG_NAME, "h1").text.strip() == "Build your guitar"

    form = d.find_element(By.CSS_SELECTOR, "form#build-form")
    assert (form.get_attribute("method") or "").lower() == "post"
    assert path_of(form.get_attribute("action")) == "/build"
    for field in FIELDS:
        fieldset = form.find_element(By.CSS_SELECTOR, f"fieldset#picker-{field}")
        for value, _, _ in OPTIONS[field]:
            radio = fieldset.find_element(
                By.CSS_SELECTOR, f'input[type="radio"][name="{field}"][value="{value}"]')
            assert radio.get_attribute("id") == f"{field}-{value}"
            assert normalized(label(d, field, value).text) == label_text(field, value)
            assert radio.is_selected() == (value == DEFAULT[field]), f"{field}={value}"

    submit = d.find_element(By.ID, "build-submit")
    assert submit.is_displayed(), "without JS the form needs its submit button"
    assert normalized(submit.text or submit.get_attribute("value")) == "Update guitar"

    reset = d.find_element(By.CSS_SELECTOR, "form#start-over-form")
    assert (reset.get_attribute("method") or "").lower() == "post"
    assert path_of(reset.get_attribute("action")) == "/build/reset"
    start_over = reset.find_element(By.ID, "start-over")
    assert normalized(start_over.text or start_over.get_attribute("value")) == "Start over"

    assert normalized(d.find_element(By.ID, "checkout-button").text) == "Checkout ($2,000)"
    wait_for_guitar(d, DEFAULT)


def test_page_with_js_hides_the_submit_button(driver, base_url):
    open_builder(driver, base_url)  # also waits for the event stream
    assert "js" in driver.find_element(By.TAG_NAME, "html").get_attribute("class").split()
    assert not driver.find_element(By.ID, "build-submit").is_displayed()
    wait_for_guitar(driver, DEFAULT)


# --- (a) JS on: clicking labels updates the page live, without a reload -------------------------

JS_CHANGES = [
    ("shape", "longV"),
    ("color", "sky"),
    ("body", "koa"),
    ("fretboard", "ebony"),
    ("shape", "sharpV"),
    ("body", "blackLimba"),
    ("fretboard", "blackLimba"),
    ("color", "dusk"),
]


def test_js_label_clicks_update_picture_description_and_price_live(driver, base_url):
    open_builder(driver, base_url)
    wait_for_guitar(driver, DEFAULT)
    mark_page(driver)
    guitar = dict(DEFAULT)
    for field, value in JS_CHANGES:
        click_label(driver, field, value)
        guitar = changed(guitar, **{field: value})
        wait_for_guitar(driver, guitar)
    assert_no_reload(driver)
    assert path_of(driver.current_url) == "/"
    # and the server kept it: a reload shows the same guitar
    driver.refresh()
    wait_for_guitar(driver, guitar)


# --- (b) JS off: radios + submit, post/redirect/get ---------------------------------------------

NOJS_CHANGES = [("shape", "longV"), ("color", "sky"), ("body", "koa"), ("fretboard", "ebony")]


def test_nojs_radios_and_submit_post_redirect_get(nojs_driver, base_url):
    d = nojs_driver
    open_builder(d, base_url)
    wait_for_guitar(d, DEFAULT)
    guitar = dict(DEFAULT)
    for field, value in NOJS_CHANGES:
        choose_radio(d, field, value)
        submit_and_wait_for_reload(d, "build-submit")
        guitar = changed(guitar, **{field: value})
        wait_for_guitar(d, guitar)
        assert d.current_url == base_url + "/", "post/redirect/get must land on /"
    # several fields in one post
    choose_radio(d, "shape", "chunky")
    choose_radio(d, "body", "swampAsh")
    submit_and_wait_for_reload(d, "build-submit")
    guitar = changed(guitar, shape="chunky", body="swampAsh")
    wait_for_guitar(d, guitar)
    assert d.current_url == base_url + "/"


# --- (c) two windows of one session -------------------------------------------------------------

def test_two_windows_of_one_session_stay_in_step(driver, base_url):
    open_builder(driver, base_url)
    first = driver.current_window_handle
    driver.switch_to.new_window("tab")  # same browser, same cookies, same session
    second = driver.current_window_handle
    open_builder(driver, base_url)
    wait_for_guitar(driver, DEFAULT)
    mark_page(driver)

    driver.switch_to.window(first)
    wait_live(driver)
    mark_page(driver)
    click_label(driver, "shape", "sharpV")
    guitar = changed(DEFAULT, shape="sharpV")
    wait_for_guitar(driver, guitar)

    driver.switch_to.window(second)
    wait_for_guitar(driver, guitar)
    assert_no_reload(driver)

    # and the other way round
    click_label(driver, "color", "earth")
    guitar = changed(guitar, color="earth")
    wait_for_guitar(driver, guitar)

    driver.switch_to.window(first)
    wait_for_guitar(driver, guitar)
    assert_no_reload(driver)


# --- (d) start over ------------------------------------------------------------------------------

@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
def test_start_over_resets_to_the_default_guitar(new_browser, base_url, js):
    d = new_browser(js=js)
    open_builder(d, base_url)
    guitar = changed(DEFAULT, shape="sharpV", color="sky", body="koa", fretboard="ebony")
    if js:
        shown = dict(DEFAULT)
        for field in FIELDS:
            click_label(d, field, guitar[field])
            shown[field] = guitar[field]
            wait_for_guitar(d, shown)
    else:
        for field in FIELDS:
            choose_radio(d, field, guitar[field])
        submit_and_wait_for_reload(d, "build-submit")
        wait_for_guitar(d, guitar)
    assert total_price(guitar) != total_price(DEFAULT)

    if js:
        d.find_element(By.ID, "start-over").click()
        wait_for_guitar(d, DEFAULT)
    else:
        submit_and_wait_for_reload(d, "start-over")
        wait_for_guitar(d, DEFAULT)
        assert d.current_url == base_url + "/"
    assert normalized(d.find_element(By.ID, "checkout-button").text) == "Checkout ($2,000)"
    d.refresh()
    wait_for_guitar(d, DEFAULT)


# --- (e) another browser is another session -----------------------------------------------------

def test_another_browser_does_not_see_this_sessions_changes(new_browser, base_url):
    a = new_browser(js=True)
    open_builder(a, base_url)
    click_label(a, "shape", "sharpV")
    wait_for_guitar(a, changed(DEFAULT, shape="sharpV"))
    click_label(a, "color", "earth")
    guitar_a = changed(DEFAULT, shape="sharpV", color="earth")
    wait_for_guitar(a, guitar_a)

    b = new_browser(js=True)  # new browser: no cookies, a new session
    open_builder(b, base_url)
    wait_for_guitar(b, DEFAULT)
    click_label(b, "body", "swampAsh")
    guitar_b = changed(DEFAULT, body="swampAsh")
    wait_for_guitar(b, guitar_b)

    # a's page goes on showing a's guitar only: its next change lands on a's state, not b's
    click_label(a, "fretboard", "birdseyeMaple")
    guitar_a = changed(guitar_a, fretboard="birdseyeMaple")
    wait_for_guitar(a, guitar_a)
    a.refresh()
    wait_for_guitar(a, guitar_a)
    b.refresh()
    wait_for_guitar(b, guitar_b)
    assert page_state(a) != page_state(b)
