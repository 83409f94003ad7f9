"""The documentation says what the project is: every relative link and anchor in README.md and
docs/ leads somewhere, every flag of `luthier serve` is in the operating page's table and every
flag there exists, and every `luthier` subcommand the docs name answers `--help`. It runs the
binary `swift build` made (LUTHIER_BIN to name another)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("LUTHIER_BIN", ROOT / ".build" / "debug" / "luthier"))
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercased, punctuation but hyphens dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found, in_code = set(), False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            found.add(slug(line.lstrip("#")))
    return found


def links(page: Path) -> list[str]:
    text, in_code, kept = page.read_text(), False, []
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code:
            kept.extend(LINK.findall(line))
    return kept


def test_every_relative_link_and_anchor_leads_somewhere():
    broken = []
    for page in PAGES:
        for target in links(page):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            destination = (page.parent / path).resolve() if path else page
            if not destination.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []


def test_the_readme_is_short_and_names_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    assert "swift run luthier" in readme and "Scripts/test" in readme


def help_of(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN), *arguments, "--help"], capture_output=True, text=True, timeout=60)


def test_every_serve_flag_is_documented_and_every_documented_flag_exists():
    answer = help_of("serve")
    assert answer.returncode == 0, answer.stderr
    real = set(re.findall(r"^\s+(?:-\w, )?(--[a-z0-9-]+)", answer.stdout, flags=re.M)) - {"--help"}
    table = (ROOT / "docs" / "operating.md").read_text()
    documented = set()
    for row in table.splitlines():
        if row.startswith("| `--"):
            documented |= set(re.findall(r"`(--[a-z0-9-]+)", row.split("|")[1]))
    documented -= {"--help"}
    assert sorted(real - documented) == [], "flags the operating page does not list"
    assert sorted(documented - real) == [], "flags the operating page lists that do not exist"


def test_every_subcommand_the_docs_name_exists():
    named = set()
    for page in PAGES:
        named |= set(re.findall(r"`luthier ([a-z]+)", page.read_text()))
    assert named, "the docs name no subcommand"
    for subcommand in sorted(named):
        answer = help_of(subcommand)
        assert answer.returncode == 0, f"luthier {subcommand}: {answer.stderr}"
