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
