"""Every kind of page passes an axe-core audit (the axe-core that axe-selenium-python bundles),
with no violation of any rule: the builder, the cart empty and full, a checkout of one guitar and
of a cart, just ordered, the order page, the kiosk and an error page."""

from __future__ import annotations

from axe_selenium_python import Axe

from page_tour import KINDS_OF_PAGE, visit_every_kind_of_page


def violations(driver) -> list[str]:
    axe = Axe(driver)
    axe.inject()
    result = axe.run()
    return [
        f"{violation['id']}: {node['target']} {node['failureSummary'].splitlines()[-1].strip()}"
        for violation in result["violations"]
        for node in violation["nodes"]
    ]


def test_every_kind_of_page_passes_axe(driver, base_url):
    audited: dict[str, list[str]] = {}

    def audit(name: str) -> None:
        audited[name] = violations(driver)

    visit_every_kind_of_page(driver, base_url, audit)
    assert {name: found for name, found in audited.items() if found} == {}, audited
    assert len(audited) == KINDS_OF_PAGE


def test_pages_pass_axe_after_patches_have_landed(driver, base_url):
    """The same audit once changes have been patched in and announced: the builder after a new
    colour, the cart after a line's quantity changed."""
    from builder_page import DEFAULT, click_label, open_builder, wait_for_guitar, wait_live
    from cart_page import click_button, line_id, open_cart, wait_for_cart
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    d = driver
    open_builder(d, base_url)
    wait_live(d)
    click_label(d, "color", "sky")
    sky = {**DEFAULT, "color": "sky"}
    wait_for_guitar(d, sky)
    WebDriverWait(d, 10).until(lambda _: d.find_element(By.ID, "announce-polite").get_attribute("textContent"))
    assert violations(d) == []

    click_button(d, "add-to-cart", "Add to cart")
    open_cart(d, base_url)
    wait_for_cart(d, [(sky, 1)])
    wait_live(d)
    click_button(d, f"increment-{line_id(sky)}")
    wait_for_cart(d, [(sky, 2)])
    WebDriverWait(d, 10).until(lambda _: d.find_element(By.ID, "announce-polite").get_attribute("textContent"))
    assert violations(d) == []
