"""The stream inspector beside the builder: a change made in the builder's window shows as marbles
in the inspector's window, lane by lane, live."""

from __future__ import annotations

import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import WAIT, click_label, wait_live


def marble_labels(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#inspector-lanes .marble'))"
        ".map(function (m) { return m.getAttribute('aria-label'); });")


def lane_names(driver) -> list[str]:
    # Read in one script, as the marbles are: the live diagram replaces its elements on every
    # redraw, so an element found in one call can be gone by the next ("stale element reference").
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#inspector-lanes .lane-label'))"
        ".map(function (label) { return label.textContent; });")


def builder_and_inspector(driver, base_url, query: str) -> tuple[str, str]:
    """Opens the builder, then the inspector (`/inspect` with `query`) in a second window, both
    live; returns their window handles, the inspector's shown."""
    driver.get(base_url + "/")
    wait_live(driver)
    builder = driver.current_window_handle
    driver.switch_to.new_window("window")
    driver.get(base_url + "/inspect" + query)
    wait_live(driver)
    return builder, driver.current_window_handle


def pick_and_see_its_marble(driver, builder: str, inspector: str, value: str) -> None:
    """Picks a colour in the builder window and waits until the inspector window shows the change
    on its input lane (a marble labelled with it, alone or among others)."""
    driver.switch_to.window(builder)
    click_label(driver, "color", value.lower())
    driver.switch_to.window(inspector)
    WebDriverWait(driver, WAIT).until(
        lambda d: any(label and f"change(color: {value})" in label for label in marble_labels(d)))


def test_a_change_in_the_builder_travels_through_the_inspectors_lanes(driver, base_url):
    builder, inspector = builder_and_inspector(driver, base_url, "?window=60")
    pick_and_see_its_marble(driver, builder, inspector, "Sky")
    assert any(label and label.startswith("build.input: change(color: Sky)") for label in marble_labels(driver))
    lanes = lane_names(driver)
    # Input, then the folded state, then the session's output, then the builder tab's patch.
    for lane in ["build.input", "build.state", "session.output"]:
        assert lane in lanes, lanes
    WebDriverWait(driver, WAIT).until(lambda d: any(name.startswith("tab.") for name in lane_names(d)))
    lanes = lane_names(driver)
    tab = next(index for index, name in enumerate(lanes) if name.startswith("tab."))
    assert lanes.index("build.input") < lanes.index("build.state") < lanes.index("session.output") < tab, lanes
    # A marble's text is its accessible name and shows on focus. Read in one script: the diagram
    # may be redrawn between finding an element and reading it (a stale element failed CI once).
    assert driver.execute_script(
        "var m = document.querySelector('#inspector-lanes .marble');"
        "return m.hasAttribute('href') || m.getAttribute('tabindex') === '0';")


def caused_lanes(driver) -> dict[str, list[str]]:
    """The lit marbles' lanes, and the cause of each marble, read in one script."""
    return driver.execute_script(
        "var lit = Array.from(document.querySelectorAll('#inspector-lanes .marble-caused'));"
        "return {lit: lit.map(function (m) { return m.getAttribute('aria-label').split(':')[0]; }),"
        " causes: lit.map(function (m) { return m.dataset.cause; })};")


def test_selecting_a_marble_lights_up_everything_its_change_caused(driver, base_url):
    builder, inspector = builder_and_inspector(driver, base_url, "?window=60")
    driver.switch_to.window(builder)
    click_label(driver, "color", "sky")
    driver.switch_to.window(inspector)
    selector = "#inspector-lanes a.marble[aria-label^='build.input: change(color: Sky)']"
    WebDriverWait(driver, WAIT).until(EC.presence_of_element_located((By.CSS_SELECTOR, selector)))
    # The tab's patch lands on its lane after the input: wait for it before selecting.
    WebDriverWait(driver, WAIT).until(lambda d: any(name.startswith("tab.") for name in lane_names(d)))
    cause = driver.execute_script(f"return document.querySelector(\"{selector}\").dataset.cause;")
    WebDriverWait(driver, WAIT).until(EC.element_to_be_clickable((By.CSS_SELECTOR, selector))).click()
    heading = WebDriverWait(driver, WAIT).until(EC.presence_of_element_located((By.ID, "cause-heading")))
    assert heading.text == f"Change {cause}"
    wait_live(driver)
    seen = caused_lanes(driver)
    assert set(seen["causes"]) == {cause}, seen
    for lane in ["build.input", "build.state", "session.output"]:
        assert lane in seen["lit"], seen
    assert any(name.startswith("tab.") for name in seen["lit"]), seen
    # The panel names the one field the change made, with its value after.
    diff = driver.find_element(By.CSS_SELECTOR, ".cause-diff").text
    assert ".guitar.color" in diff and '"sky"' in diff, diff


def test_pause_holds_the_diagram_until_it_is_released(driver, base_url):
    builder, inspector = builder_and_inspector(driver, base_url, "?window=60&lane=build.input")
    driver.find_element(By.ID, "inspector-pause").click()
    held = len(marble_labels(driver))

    driver.switch_to.window(builder)
    click_label(driver, "color", "dusk")
    driver.switch_to.window(inspector)
    # Redraws arrive every half second; paused, none is shown.
    time.sleep(1.5)
    assert len(marble_labels(driver)) == held
    driver.find_element(By.ID, "inspector-pause").click()
    WebDriverWait(driver, WAIT).until(
        lambda d: any(label and label.startswith("build.input: change(color: Dusk)") for label in marble_labels(d)))


def test_a_diagram_edited_while_paused_shows_every_edit_on_release(driver, base_url):
    """While the diagram is held, the stream sends a change's marbles and the clock as edits of the
    diagram, not the diagram whole. Those edits must reach what is shown on release: before, the
    held copy kept only whole diagrams, and an edit left it empty, so releasing Pause showed the
    word "undefined" in place of the diagram."""
    builder, inspector = builder_and_inspector(driver, base_url, "?window=60&lane=build.input")
    # Once the lane is drawn, a change sends its marble as an edit of the diagram.
    pick_and_see_its_marble(driver, builder, inspector, "Sky")
    driver.find_element(By.ID, "inspector-pause").click()

    driver.switch_to.window(builder)
    click_label(driver, "color", "dusk")
    driver.switch_to.window(inspector)
    time.sleep(1.5)
    driver.find_element(By.ID, "inspector-pause").click()
    # Both changes shown (as one marble of two values when they came close together).
    WebDriverWait(driver, WAIT).until(
        lambda d: any(label and "change(color: Dusk)" in label for label in marble_labels(d)))
    lanes = driver.find_element(By.ID, "inspector-lanes").text
    assert "undefined" not in lanes, lanes
    assert any(label and "change(color: Sky)" in label for label in marble_labels(driver)), marble_labels(driver)


def description(driver) -> str:
    return driver.find_element(By.ID, "guitar-description").text


def test_the_scrubber_goes_back_to_a_moment_and_shows_the_builder_as_it_was(driver, base_url):
    builder, inspector = builder_and_inspector(driver, base_url, "?window=60")
    driver.switch_to.window(builder)
    click_label(driver, "color", "sky")
    WebDriverWait(driver, WAIT).until(lambda d: description(d).startswith("Sky"))
    click_label(driver, "color", "dusk")
    WebDriverWait(driver, WAIT).until(lambda d: description(d).startswith("Dusk"))

    driver.switch_to.window(inspector)
    driver.get(base_url + "/inspect?window=60")
    slider = driver.find_element(By.ID, "inspector-moment")
    assert (slider.get_attribute("min"), slider.get_attribute("max")) == ("1", "2")
    # Moving the slider shows the step it is on before anything is sent.
    slider.send_keys(Keys.HOME)
    assert driver.find_element(By.ID, "inspector-moment-value").text == "1"
    driver.find_element(By.CSS_SELECTOR, ".scrubber-form button[type=submit]").click()
    heading = WebDriverWait(driver, WAIT).until(EC.presence_of_element_located((By.ID, "moment-heading")))
    assert heading.text.startswith("Right after step 1")
    assert "change(color: Sky)" in driver.find_element(By.CSS_SELECTOR, ".inspector-moment code").text

    driver.find_element(By.LINK_TEXT, "The builder as it was").click()
    WebDriverWait(driver, WAIT).until(EC.presence_of_element_located((By.CSS_SELECTOR, ".frozen-note")))
    assert description(driver).startswith("Sky")
    assert driver.find_element(By.ID, "main").get_attribute("inert") is not None
    # The live builder is where it is now.
    driver.switch_to.window(builder)
    assert description(driver).startswith("Dusk")


def test_highlight_updates_outlines_what_each_change_updates_in_every_tab(driver, base_url):
    builder, inspector = builder_and_inspector(driver, base_url, "?window=60")
    driver.find_element(By.ID, "highlight-button").click()
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script(
        "return document.getElementById('highlight-button').textContent;") == "Stop highlighting updates")
    # A second builder tab of the same session.
    driver.switch_to.new_window("tab")
    driver.get(base_url + "/")
    wait_live(driver)
    other = driver.current_window_handle

    driver.switch_to.window(builder)
    click_label(driver, "color", "sky")
    for tab in (builder, other):
        driver.switch_to.window(tab)
        WebDriverWait(driver, WAIT).until(lambda d: "change(color: Sky)" in (d.execute_script(
            "return document.getElementById('guitar-price').dataset.updatedBy || '';")))
        note = driver.execute_script("return document.getElementById('guitar-price').title;")
        assert note.startswith("Change ") and note.endswith("build.input change(color: Sky)"), note
        # The outline goes after about half a second; the name stays until the next change.
        WebDriverWait(driver, WAIT).until(lambda d: d.execute_script(
            "return document.querySelectorAll('.lu-updated').length;") == 0)

    driver.switch_to.window(inspector)
    driver.find_element(By.ID, "highlight-button").click()
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script(
        "return document.getElementById('highlight-button').textContent;") == "Highlight updates on every open page")
    driver.switch_to.window(other)
    click_label(driver, "color", "earth")
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script(
        "return document.getElementById('guitar-description').textContent;").startswith("Earth"))
    assert "color: Earth" not in driver.execute_script(
        "return document.getElementById('guitar-price').dataset.updatedBy || '';")


def focused_marble(driver) -> str:
    return driver.execute_script(
        "const m = document.activeElement; return m && m.classList.contains('marble') ? m.getAttribute('aria-label') : '';")


def test_the_keyboard_moves_between_marbles_and_enter_selects_a_change(driver, base_url):
    builder, inspector = builder_and_inspector(driver, base_url, "?window=10")
    driver.switch_to.window(builder)
    click_label(driver, "color", "sky")
    time.sleep(1)  # two changes a second apart, as a person makes them: drawn apart on 10 s
    click_label(driver, "color", "dusk")
    driver.switch_to.window(inspector)
    WebDriverWait(driver, WAIT).until(lambda d: any(
        label and label.startswith("build.input: change(color: Dusk)") for label in marble_labels(d)))
    WebDriverWait(driver, WAIT).until(lambda d: any(name.startswith("tab.") for name in lane_names(d)))
    # Each value says what it is at a glance.
    shorts = driver.execute_script(
        "return Array.from(document.querySelectorAll('#inspector-lanes .marble-label')).map(t => t.textContent);")
    assert "color: Sky" in shorts and "color: Dusk" in shorts, shorts

    driver.execute_script(
        "document.querySelector(\"#inspector-lanes .marble[aria-label^='build.input: change(color: Sky)']\").focus();")
    assert focused_marble(driver).startswith("build.input: change(color: Sky)")
    def press(key):  # to the element with the focus, as a person types
        ActionChains(driver).send_keys(key).perform()

    press(Keys.ARROW_RIGHT)
    assert focused_marble(driver).startswith("build.input: change(color: Dusk)"), focused_marble(driver)
    press(Keys.ARROW_DOWN)
    assert focused_marble(driver).startswith("build.state: "), focused_marble(driver)
    press(Keys.ARROW_UP)
    press(Keys.ARROW_LEFT)
    assert focused_marble(driver).startswith("build.input: change(color: Sky)"), focused_marble(driver)
    press(Keys.ENTER)
    heading = WebDriverWait(driver, WAIT).until(EC.presence_of_element_located((By.ID, "cause-heading")))
    assert heading.text.startswith("Change ")
