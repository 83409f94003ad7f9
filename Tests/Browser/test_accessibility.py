"""Every kind of page passes an axe-core audit (the axe-core that axe-selenium-python bundles),
with no violation of any rule: the builder, the cart empty and full, a checkout of one guitar and
of a cart, just ordered, the order page, the kiosk and an error page."""

from __future__ import annotations

from axe_selenium_python import Axe
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import WAIT, click_label, wait_live


def violations(driver) -> list[str]:
    axe = Axe(driver)
    axe.inject()
    result = axe.run()
    return [
        f"{violation['id']}: {node['target']} {node['failureSummary'].splitlines()[-1].strip()}"
        for violation in result["violations"]
        for node in violation["nodes"]
    ]


def audit(driver, name: str, audited: dict[str, list[str]]) -> None:
    audited[name] = violations(driver)


def click(driver, selector: str) -> None:
    WebDriverWait(driver, WAIT).until(EC.element_to_be_clickable((By.CSS_SELECTOR, selector))).click()


def test_every_kind_of_page_passes_axe(driver, base_url):
    audited: dict[str, list[str]] = {}
    driver.get(base_url + "/")
    wait_live(driver)
    audit(driver, "builder", audited)

    driver.get(base_url + "/cart")
    wait_live(driver)
    audit(driver, "empty cart", audited)

    driver.get(base_url + "/")
    wait_live(driver)
    click_label(driver, "color", "sky")
    click(driver, "#add-to-cart-form button[type=submit]")
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script("return document.querySelector('#cart-badge .badge').textContent.trim()") == "1")
    driver.get(base_url + "/cart")
    wait_live(driver)
    driver.find_element(By.CSS_SELECTOR, "#discount-form input[name=code]").send_keys("WELCOME10")
    click(driver, "#discount-form button[type=submit]")
    WebDriverWait(driver, WAIT).until(EC.presence_of_element_located((By.ID, "cart-discounted-total")))
    audit(driver, "cart with a line and a code", audited)

    click(driver, "#cart-checkout")
    WebDriverWait(driver, WAIT).until(EC.url_contains("/checkout"))
    WebDriverWait(driver, WAIT).until(EC.element_to_be_clickable((By.ID, "order-button")))
    audit(driver, "checkout of a cart", audited)

    driver.get(base_url + "/")
    wait_live(driver)
    click(driver, "#checkout-form button[type=submit]")
    WebDriverWait(driver, WAIT).until(EC.url_contains("/checkout"))
    WebDriverWait(driver, WAIT).until(EC.element_to_be_clickable((By.ID, "order-button")))
    audit(driver, "checkout of one guitar", audited)
    click(driver, "#order-button")
    link = WebDriverWait(driver, WAIT).until(EC.presence_of_element_located((By.ID, "order-link")))
    audit(driver, "ordered", audited)
    driver.get(link.get_attribute("href"))
    audit(driver, "order page", audited)

    driver.get(base_url + "/kiosk")
    wait_live(driver)
    audit(driver, "kiosk", audited)

    driver.get(base_url + "/no/such/page")
    audit(driver, "error page", audited)

    assert {name: found for name, found in audited.items() if found} == {}, audited
    assert len(audited) == 9
