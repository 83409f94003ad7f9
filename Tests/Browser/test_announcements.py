"""Live changes announced: the fragments the server declares announced are read out through the
page's live regions, once a fast run of changes has settled (arrowing through colours says the
last guitar and its price once, not each one), and the announcement is in Chromium's
accessibility tree. The axe audit after patches have landed is in test_accessibility.py."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import (DEFAULT, WAIT, description, dollars, open_builder, total_price,
                          wait_for_guitar, wait_live)

COUNT_ANNOUNCEMENTS = """
window.__announced = [];
new MutationObserver(() => {
  window.__announced.push(document.getElementById('announce-polite').textContent);
}).observe(document.getElementById('announce-polite'), {childList: true, characterData: true, subtree: true});
"""


def test_a_fast_run_of_changes_is_announced_once_and_is_in_the_accessibility_tree(driver, base_url):
    d = driver
    open_builder(d, base_url)
    wait_live(d)
    d.execute_script(COUNT_ANNOUNCEMENTS)

    # Arrow keys through the colours, as fast as a person holding the key: three changes.
    d.find_element(By.CSS_SELECTOR, 'label[for="color-natural"]').click()
    wait_for_guitar(d, DEFAULT)
    radio = d.find_element(By.ID, "color-natural")
    for _ in range(3):
        radio = d.switch_to.active_element
        radio.send_keys(Keys.ARROW_RIGHT)
    final = {**DEFAULT, "color": "earth"}
    wait_for_guitar(d, final)

    expected = f"{description(final)}. Price {dollars(total_price(final))}"
    WebDriverWait(d, WAIT).until(
        lambda _: d.execute_script("return window.__announced.length") > 0, "nothing was announced")
    # Settled: one announcement, of the last guitar.
    d.execute_async_script("setTimeout(arguments[arguments.length - 1], 1200)")
    assert d.execute_script("return window.__announced") == [expected]

    tree = d.execute_cdp_cmd("Accessibility.getFullAXTree", {})
    names = [node.get("name", {}).get("value", "") for node in tree["nodes"]]
    assert expected in names, [name for name in names if "Price" in name]
