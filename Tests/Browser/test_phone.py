"""A phone-sized window (390 × 844 CSS pixels, a common phone): no kind of page scrolls sideways,
and the builder's choices and the cart's buttons stay inside the screen."""

from __future__ import annotations

from page_tour import KINDS_OF_PAGE, visit_every_kind_of_page

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}

# What sticks out past the right edge of the viewport, named so a failure says where to look.
OVERFLOWING = """
const width = document.documentElement.clientWidth;
return [document.documentElement.scrollWidth, width,
  Array.from(document.querySelectorAll('body *'))
    .filter(e => e.getBoundingClientRect().right > width + 0.5)
    .slice(0, 5)
    .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
              (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ').join('.') : '') +
              ' ends at ' + Math.round(e.getBoundingClientRect().right))];
"""


def test_no_kind_of_page_scrolls_sideways_on_a_phone(driver, base_url):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    measured: dict[str, list] = {}

    def measure(name: str) -> None:
        scroll_width, width, sticking_out = driver.execute_script(OVERFLOWING)
        assert width == PHONE["width"], f"the phone's viewport was not applied on {name}: {width}"
        measured[name] = [] if scroll_width <= width else [f"{scroll_width} px wide", *sticking_out]

    visit_every_kind_of_page(driver, base_url, measure)
    assert {name: found for name, found in measured.items() if found} == {}, measured
    assert len(measured) == KINDS_OF_PAGE


def test_a_busy_kiosk_does_not_scroll_sideways_on_a_phone(driver, base_url):
    """A busy shop's counters (five-digit numbers) still fit a phone: three side by side did not."""
    from builder_page import wait_live

    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    driver.get(base_url + "/kiosk")
    wait_live(driver)
    driver.execute_script("for (const n of document.querySelectorAll('.kiosk-number')) n.textContent = '12,345';")
    scroll_width, width, sticking_out = driver.execute_script(OVERFLOWING)
    assert scroll_width <= width, [f"{scroll_width} px wide", *sticking_out]
