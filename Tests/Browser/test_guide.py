"""The guided build (`/guide`) in a real browser: with JavaScript each answer shows live, Next
turns on once the step is answered, and focus moves to the new step's heading; without it every
step is a form that posts and comes back. Both walk the whole guide, Back included, and finish in
the checkout or the builder."""

from __future__ import annotations

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from builder_page import WAIT, description, label_text, normalized, wait_live

GUITAR = {"shape": "sharpV", "color": "dusk", "body": "swampAsh", "fretboard": "ebony"}
STEPS = ["shape", "color", "body", "fretboard"]


def heading(driver) -> str:
    return normalized(driver.find_element(By.ID, "guide-heading").text)


def wait_for_heading(driver, text: str) -> None:
    WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: heading(d) == text, f"the guide never showed {text!r}")


def pick(driver, field: str, value: str) -> None:
    """Chooses an option by its label, as a person does, checking what the label says."""
    locator = (By.CSS_SELECTOR, f'label[for="guide-{field}-{value}"]')

    def click(d) -> bool:
        element = EC.element_to_be_clickable(locator)(d)
        if not element:
            return False
        assert normalized(element.text) == label_text(field, value)
        element.click()
        return True

    WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(click)


def next_button(driver):
    return driver.find_element(By.ID, "guide-next")


def click_id(driver, element_id: str) -> None:
    """Clicks a button once it is enabled, again if a patch swapped it out meanwhile."""
    def clicked(d) -> bool:
        element = EC.element_to_be_clickable((By.ID, element_id))(d)
        if not element:
            return False
        element.click()
        return True

    WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(clicked)


def submit_and_wait(driver, button_id: str) -> None:
    """Clicks a button of a page without JavaScript and waits for the next page."""
    old = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.ID, button_id).click()
    WebDriverWait(driver, WAIT, ignored_exceptions=(WebDriverException,)).until(EC.staleness_of(old))
    WebDriverWait(driver, WAIT).until(EC.presence_of_element_located((By.TAG_NAME, "main")))


def focused_id(driver) -> str:
    return driver.execute_script("return document.activeElement && document.activeElement.id")


def test_the_whole_guide_live_with_javascript(new_browser, base_url):
    d = new_browser(js=True)
    d.get(base_url + "/guide")
    wait_live(d)
    d.execute_script("window.__marker = 1")
    assert heading(d) == "Step 1 of 5: Shape"
    assert not next_button(d).is_enabled(), "Next waits for an answer"

    for number, field in enumerate(STEPS, start=1):
        pick(d, field, GUITAR[field])
        # The answer is posted at once: Next turns on, and the picture follows the answer.
        WebDriverWait(d, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: next_button(d).is_enabled(), f"Next never turned on at the {field} step")
        WebDriverWait(d, WAIT).until(
            lambda d: d.find_element(By.CSS_SELECTOR, "#guide-picture img").get_attribute(f"data-{field}")
            == GUITAR[field])
        if field == "color":
            # Back keeps the answer, and focus lands on the step's heading, which is announced.
            click_id(d, "guide-back")
            wait_for_heading(d, "Step 1 of 5: Shape")
            WebDriverWait(d, WAIT).until(lambda d: focused_id(d) == "guide-heading")
            assert d.find_element(By.ID, f"guide-shape-{GUITAR['shape']}").is_selected()
            click_id(d, "guide-next")
            wait_for_heading(d, "Step 2 of 5: Color")
            assert d.find_element(By.ID, "guide-color-dusk").is_selected()
        click_id(d, "guide-next")
        title = STEPS[number].capitalize() if number < 4 else "Review"
        wait_for_heading(d, f"Step {number + 1} of 5: {title}")
        WebDriverWait(d, WAIT).until(lambda d: focused_id(d) == "guide-heading",
                                     "focus did not move to the new step's heading")
        assert d.find_element(By.CSS_SELECTOR, ".guide-progress [aria-current=step]").text.startswith(title)

    answers = [normalized(e.text) for e in d.find_elements(By.CSS_SELECTOR, ".guide-answers dd")]
    assert answers == [label_text(f, GUITAR[f]) for f in STEPS]
    assert d.execute_script("return window.__marker") == 1, "the page was reloaded along the way"
    click_id(d, "guide-to-checkout")
    WebDriverWait(d, WAIT).until(EC.url_contains("/checkout"))
    WebDriverWait(d, WAIT).until(EC.presence_of_element_located((By.ID, "order-button")))
    assert description(GUITAR) in d.page_source


def test_the_whole_guide_with_plain_forms(nojs_driver, base_url):
    d = nojs_driver
    d.get(base_url + "/guide")
    assert heading(d) == "Step 1 of 5: Shape"
    # Next without an answer is refused with the sentence, and the guide stays where it was.
    submit_and_wait(d, "guide-next")
    assert "Choose a shape first" in d.page_source
    d.get(base_url + "/guide")
    for number, field in enumerate(STEPS, start=1):
        pick(d, field, GUITAR[field])
        submit_and_wait(d, "guide-next")
        assert d.current_url.endswith("/guide")
        title = STEPS[number].capitalize() if number < 4 else "Review"
        assert heading(d) == f"Step {number + 1} of 5: {title}"
        if field == "body":
            submit_and_wait(d, "guide-back")
            assert heading(d) == "Step 3 of 5: Body"
            assert d.find_element(By.ID, "guide-body-swampAsh").is_selected(), "Back lost the answer"
            submit_and_wait(d, "guide-next")
    assert d.find_element(By.ID, "guide-summary").text.startswith(description(GUITAR))
    submit_and_wait(d, "guide-to-builder")
    assert d.current_url.rstrip("/") == base_url.rstrip("/")
    assert normalized(d.find_element(By.ID, "guitar-description").text) == description(GUITAR)
    # The builder links to the guide, which still shows its review.
    d.find_element(By.CSS_SELECTOR, 'a[href="/guide"]').click()
    WebDriverWait(d, WAIT).until(EC.url_contains("/guide"))
    assert heading(d) == "Step 5 of 5: Review"
