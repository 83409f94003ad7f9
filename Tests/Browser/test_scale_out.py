"""Three instances on one PostgreSQL database behind Debian's nginx with a plain round-robin
upstream (issue 19): no sticky sessions, so a browser's event stream, its posts and its pages land
on different instances. With JavaScript the page still follows every change live and orders; the
kiosk of an instance the browser never reached shows the order; without JavaScript every page
shows what the posts before it did, wherever they landed.

Runs when `LUTHIER_TEST_POSTGRES_URL` names a server and nginx is installed (`Scripts/test`
installs both)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from builder_page import DEFAULT, FIELDS, choose_radio, click_label, open_builder, submit_and_wait_for_reload, \
    wait_for_guitar
from checkout_page import wait_for_checkout, wait_for_confirmation, wait_for_path
from conftest import _answers, _free_port, _fresh_postgres_database, _run_server
from kiosk_page import open_kiosk, wait_for_kiosk
from selenium.webdriver.common.by import By

POSTGRES_SERVER = os.environ.get("LUTHIER_TEST_POSTGRES_URL", "")
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)

pytestmark = pytest.mark.skipif(
    not POSTGRES_SERVER or not NGINX, reason="needs LUTHIER_TEST_POSTGRES_URL and nginx")

# The upstream of docs/operating.md ("Scaling out"), without ip_hash: plain round robin.
NGINX_CONF = """
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format upstream '$upstream_addr $request';
    access_log {dir}/access.log upstream;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    upstream luthier {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://luthier;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_buffering off;
            proxy_read_timeout 1h;
        }}
    }}
}}
"""


class BalancedShop:
    def __init__(self, url: str, instances: list, log: Path):
        self.url = url
        self.instances = instances
        self.access_log = log

    def upstreams_used(self) -> set[str]:
        """The instances nginx sent requests to (its access log's upstream addresses)."""
        text = self.access_log.read_text(errors="replace") if self.access_log.exists() else ""
        return {word for line in text.splitlines() for word in line.split() if word.startswith("127.0.0.1:")}


@pytest.fixture(scope="module")
def balanced_shop(tmp_path_factory):
    database = _fresh_postgres_database("scale-out", POSTGRES_SERVER)
    with contextlib.ExitStack() as stack:
        instances = [
            stack.enter_context(contextlib.contextmanager(_run_server)(
                tmp_path_factory, f"instance-{n}", database=database))
            for n in (1, 2, 3)]
        directory = tmp_path_factory.mktemp("nginx")
        directory.chmod(0o777)  # the worker process may run as another user
        port = _free_port()
        servers = "\n".join(f"        server {i.base_url.removeprefix('http://')};" for i in instances)
        conf = directory / "nginx.conf"
        conf.write_text(NGINX_CONF.format(dir=directory, port=port, servers=servers))
        proc = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(directory)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=open(directory / "stderr.log", "wb"))
        stack.callback(lambda: (proc.terminate(), proc.wait(timeout=10)))
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 10
        while not _answers(url + "/healthz"):
            assert proc.poll() is None, (directory / "stderr.log").read_text()
            assert time.monotonic() < deadline, "nginx did not answer within 10 s"
            time.sleep(0.1)  # polling a process, not synchronising with a page
        yield BalancedShop(url, instances, directory / "access.log")


GUITAR = {"shape": "longV", "color": "sky", "body": "koa", "fretboard": "ebony"}


def test_js_build_checkout_and_order_through_a_round_robin_balancer(new_browser, balanced_shop):
    shop = balanced_shop
    kiosk = new_browser(js=True)
    # The kiosk on the third instance directly: the browser below never needs to reach it.
    state = open_kiosk(kiosk, shop.instances[2].base_url)
    ordered_before = int(state["ordered_today"] or 0)

    d = new_browser(js=True)
    open_builder(d, shop.url)  # its stream, through nginx, lands on one instance
    shown = dict(DEFAULT)
    for field in FIELDS:
        # Each click posts through nginx to the next instance; the page moves only when the
        # patch arrives on its stream, from whichever instance holds it.
        click_label(d, field, GUITAR[field])
        shown[field] = GUITAR[field]
        wait_for_guitar(d, shown)
    d.find_element(By.ID, "checkout-button").click()
    wait_for_path(d, "/checkout")
    wait_for_checkout(d, GUITAR, "pickup", "USD")
    d.find_element(By.ID, "order-button").click()
    wait_for_confirmation(d)

    wait_for_kiosk(kiosk, lambda s: int(s["ordered_today"] or 0) == ordered_before + 1,
                   "the order placed through the balancer")
    assert len(shop.upstreams_used()) == 3, f"nginx used {shop.upstreams_used()}"


def test_nojs_every_page_shows_the_posts_before_it_wherever_they_landed(new_browser, balanced_shop):
    d = new_browser(js=False)
    guitar = {"shape": "chunky", "color": "earth", "body": "swampAsh", "fretboard": "birdseyeMaple"}
    open_builder(d, balanced_shop.url)
    shown = dict(DEFAULT)
    for field in FIELDS:
        # Post, redirect, get: three requests, each on the next instance.
        choose_radio(d, field, guitar[field])
        submit_and_wait_for_reload(d, "build-submit")
        shown[field] = guitar[field]
        wait_for_guitar(d, shown, timeout=1)  # shown at once, not after a notice
