"""Every relative link of README.md and docs/**/*.md leads somewhere: its file exists and its
``#anchor`` is a heading of that file (as GitHub names headings) or an ``<a id="...">``."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)")
ANCHOR = re.compile(r"<a (?:id|name)=\"([^\"]+)\"")


def prose(path: Path) -> list[str]:
    """The lines of ``path`` outside fenced blocks, inline code removed."""
    lines, fenced = [], False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(re.sub(r"`[^`]*`", "", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: its text, lower case, without punctuation, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found, seen = set(), {}
    fenced = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        found.update(ANCHOR.findall(line))
        match = re.match(r"#{1,6} (.*)", line)
        if match:
            name = slug(match.group(1))
            count = seen.get(name, 0)
            seen[name] = count + 1
            found.add(name if count == 0 else f"{name}-{count}")
    return found


def links():
    for path in DOCS:
        for line in prose(path):
            for target in LINK.findall(line):
                if not re.match(r"[a-z]+:", target):
                    yield pytest.param(path, target, id=f"{path.relative_to(ROOT)}:{target}")


def test_the_slugs_are_githubs():
    assert slug("How fast is IDA* with C?") == "how-fast-is-ida-with-c"
    assert slug("Korf's 100 against the published table") == "korfs-100-against-the-published-table"
    assert slug("`tilesweep figures`") == "tilesweep-figures"
    assert slug("Move pruning (`--prune parent|fsm[:DEPTH]`)") == "move-pruning---prune-parentfsmdepth"


@pytest.mark.parametrize(("path", "target"), list(links()))
def test_the_link_resolves(path, target):
    file, _, anchor = target.partition("#")
    into = (path.parent / file).resolve() if file else path
    assert into.exists(), f"{path.name}: {target}: no such file"
    if anchor:
        assert into.suffix == ".md", f"{path.name}: {target}: an anchor into a file that is not Markdown"
        assert anchor in anchors(into), f"{path.name}: {target}: no such heading in {into.name}"
