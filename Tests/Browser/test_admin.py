"""The workshop's admin in a real browser, with and without JavaScript: signing in, a wood that
ran out marked on the builder and restocked while a customer's checkout is open (the customer's
page turns orderable, and another's builder drops the mark, without a reload), an order found, cancelled and shown cancelled live on the customer's order page, and a
discount code added and expired; every admin page passes axe."""

from __future__ import annotations

import re
import sqlite3

import pytest
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import DEFAULT, WAIT, click_label, wait_for_guitar, wait_live
from conftest import ADMIN_TOKEN, POSTGRES_URL
from test_accessibility import violations


def settled(driver) -> WebDriverWait:
    """A bounded wait that reads through page loads: while a plain form's post navigates,
    ChromeDriver may answer with an "inspector error" (the node left the document) rather than
    "not yet", so that counts as not yet."""
    return WebDriverWait(driver, WAIT, ignored_exceptions=(WebDriverException,))


def click(driver, selector: str) -> None:
    settled(driver).until(EC.element_to_be_clickable((By.CSS_SELECTOR, selector))).click()


def sign_in(admin, base_url: str) -> None:
    admin.get(base_url + "/admin")
    settled(admin).until(EC.url_contains("/admin/sign-in"))
    admin.find_element(By.ID, "admin-token").send_keys(ADMIN_TOKEN)
    click(admin, "#sign-in-form button[type=submit]")
    settled(admin).until(EC.presence_of_element_located((By.ID, "admin-counts")))


def in_stock(admin, anchor: str) -> int:
    return int(admin.find_element(By.CSS_SELECTOR, f"#{anchor} .stock-in").text)


def adjust(admin, anchor: str, change: int, note: str) -> None:
    """Books `change` with the row's own form, and waits for the page it redirects to."""
    before = in_stock(admin, anchor)
    row = admin.find_element(By.ID, anchor)
    row.find_element(By.NAME, "change").send_keys(str(change))
    row.find_element(By.NAME, "note").send_keys(note)
    row.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    # The post answers with the stock page again: the old one goes first.
    settled(admin).until(EC.staleness_of(row))
    settled(admin).until(EC.presence_of_element_located((By.ID, anchor)))
    assert in_stock(admin, anchor) == before + change


def audit(admin, name: str, audited: dict[str, list[str]]) -> None:
    # axe runs as a script in the page: a browser without JavaScript cannot run it, and its
    # pages are the same HTML the browser with JavaScript audits.
    if admin._luthier_js:
        audited[name] = violations(admin)


@pytest.mark.parametrize("js", [True, False], ids=["with-js", "without-js"])
def test_a_day_in_the_admin(new_browser, admin_server, js):
    base_url = admin_server.base_url
    audited: dict[str, list[str]] = {}
    admin = new_browser(js=js)
    admin.get(base_url + "/admin/sign-in")
    audit(admin, "sign-in", audited)
    sign_in(admin, base_url)
    audit(admin, "overview", audited)

    # Black Limba fretboards run out.
    admin.get(base_url + "/admin/stock")
    anchor = "stock-fretboard-blackLimba"
    left = in_stock(admin, anchor)
    if left:
        adjust(admin, anchor, -left, "Counted: none left")
    assert "Out of stock" in admin.find_element(By.ID, anchor).text
    audit(admin, "stock", audited)

    # A customer (with JavaScript: the page is live) keeps the builder open meanwhile.
    watcher = new_browser(js=True)
    watcher.get(base_url + "/")
    wait_live(watcher)
    assert "(out of stock)" in watcher.find_element(By.CSS_SELECTOR, "label[for=fretboard-blackLimba]").text

    # Another checks out a guitar that needs one.
    customer = new_browser(js=True)
    customer.get(base_url + "/")
    wait_live(customer)
    # The builder marks the wood out of stock; it can still be chosen.
    label = customer.find_element(By.CSS_SELECTOR, "label[for=fretboard-blackLimba]")
    assert "(out of stock)" in label.text, label.text
    click_label(customer, "fretboard", "blackLimba")
    wait_for_guitar(customer, dict(DEFAULT, fretboard="blackLimba"))
    click(customer, "#checkout-form button[type=submit]")
    settled(customer).until(EC.url_contains("/checkout"))
    wait_live(customer)
    settled(customer).until(
        EC.text_to_be_present_in_element((By.ID, "order-button"), "Model unavailable"))

    # Restocked: the customer's checkout turns orderable without a reload.
    adjust(admin, anchor, 1, "Found one in the back")
    settled(customer).until(EC.text_to_be_present_in_element((By.ID, "order-button"), "Order now"))
    # And a second customer's builder, open all along, drops the mark without a reload.
    settled(watcher).until_not(
        EC.text_to_be_present_in_element((By.CSS_SELECTOR, "label[for=fretboard-blackLimba]"), "(out of stock)"))
    assert "Found one in the back" in admin.find_element(By.ID, "stock-adjustments").text
    click(customer, "#order-button")
    link = settled(customer).until(EC.presence_of_element_located((By.ID, "order-link")))
    customer.get(link.get_attribute("href"))
    wait_live(customer)
    number = re.search(r"LU-[2-9A-Z]{6}", customer.find_element(By.TAG_NAME, "h1").text).group(0)
    assert customer.find_element(By.ID, "order-status").text == "Wood selection"

    # The admin finds the order by part of its number and cancels it.
    admin.get(base_url + "/admin/orders")
    audit(admin, "orders", audited)
    admin.find_element(By.ID, "search-number").send_keys(number[-4:].lower())
    click(admin, "#order-search button[type=submit]")
    settled(admin).until(EC.url_contains("number="))
    settled(admin).until(EC.element_to_be_clickable((By.LINK_TEXT, number))).click()
    settled(admin).until(EC.presence_of_element_located((By.ID, "cancel-form")))
    audit(admin, "order", audited)
    admin.find_element(By.ID, "cancel-note").send_keys("The customer called")
    click(admin, "#cancel-form button[type=submit]")
    settled(admin).until(
        EC.text_to_be_present_in_element((By.ID, "admin-order-stage"), "Cancelled"))
    assert "The customer called" in admin.find_element(By.ID, "stage-history").text

    # The customer's order page says so, live; the fretboard is back on the shelf.
    settled(customer).until(EC.text_to_be_present_in_element((By.ID, "order-status"), "Cancelled"))
    assert "cancelled this order" in customer.find_element(By.ID, "order-notice").text
    admin.get(base_url + "/admin/stock")
    assert in_stock(admin, anchor) == 1

    # A discount code added, then ended.
    code = "LAUNCH" + ("JS" if js else "PLAIN")
    admin.get(base_url + "/admin/codes")
    admin.find_element(By.ID, "new-code").send_keys(code)
    admin.find_element(By.ID, "new-percent").send_keys("15")
    click(admin, "#add-code-form button[type=submit]")
    row = settled(admin).until(EC.presence_of_element_located((By.ID, f"code-{code}")))
    assert "Works" in row.text
    audit(admin, "codes", audited)
    click(admin, f"#code-{code} button[type=submit]")
    settled(admin).until(EC.text_to_be_present_in_element((By.ID, f"code-{code}"), "Expired"))

    admin.get(base_url + "/admin/analytics")
    audit(admin, "analytics", audited)
    assert {name: found for name, found in audited.items() if found} == {}, audited
    assert len(audited) == (7 if js else 0)


def test_a_failed_change_becomes_an_incident_the_admin_reads(new_browser, admin_server):
    """A customer's change the shop could not save (another process holds the SQLite file's write
    lock) is kept with the steps before it; the admin finds it on /admin/incidents, opens it, and
    both pages pass axe. On PostgreSQL only the empty list is looked at: the lock is SQLite's."""
    base_url = admin_server.base_url
    admin = new_browser(js=True)
    sign_in(admin, base_url)
    admin.get(base_url + "/admin/incidents")
    settled(admin).until(EC.presence_of_element_located((By.ID, "no-incidents")))
    audited = {"incidents, none": violations(admin)}
    if POSTGRES_URL:
        assert audited == {"incidents, none": []}, audited
        return

    customer = new_browser(js=True)
    customer.get(base_url + "/")
    wait_live(customer)
    click_label(customer, "color", "sky")
    wait_for_guitar(customer, dict(DEFAULT, color="sky"))
    lock = sqlite3.connect(str(admin_server.database), isolation_level=None, timeout=10)
    try:
        lock.execute("BEGIN EXCLUSIVE")
        click_label(customer, "shape", "longV")
        # The store waits 5 s for the lock, then the page says the change could not be saved.
        WebDriverWait(customer, WAIT + 10).until(
            EC.text_to_be_present_in_element((By.ID, "notice"), "could not be saved"))
    finally:
        lock.execute("ROLLBACK")
        lock.close()

    admin.get(base_url + "/admin/incidents")
    row = settled(admin).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#incidents .incident-row")))
    assert "POST /build" in row.text and "503" in row.text, row.text
    audited["incidents"] = violations(admin)
    row.find_element(By.CSS_SELECTOR, "td a").click()
    replay = settled(admin).until(EC.presence_of_element_located((By.ID, "incident-replay")))
    assert replay.text.startswith("identical: "), replay.text
    steps = admin.find_element(By.ID, "incident-steps").text
    assert "Sky" in steps and "Long V" in steps, steps
    audited["incident"] = violations(admin)
    assert {name: found for name, found in audited.items() if found} == {}, audited
