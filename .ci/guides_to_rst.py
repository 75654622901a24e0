# What no stock tool does: the guides (Markdown in docs/) as the docsite's reStructuredText, linked to each other.
# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""docs/<guide>.md -> docs/docsite/rst/<guide>.rst in a built copy (.ci/build_collection.sh), for each
guide docs/docsite/extra-docs.yml lists: pandoc converts, and this gives each page the label
antsibull-docs requires (ansible_collections.gamepanel.panel.docsite.<ref>), makes a link to another
listed guide a reference to its page and one to what does not ship (tests, .ci...) its text, and
drops comments (the docs check's markers). No generated file is committed.

Usage: python guides_to_rst.py COLLECTION_COPY   (with .venv/guides' Python: pypandoc-binary)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

LABEL_PREFIX = "ansible_collections.gamepanel.panel.docsite."
EXTRA_DOCS = Path("docs/docsite/extra-docs.yml")
RST_DIR = Path("docs/docsite/rst")
# A Markdown link or image: [text](target) / ![alt](target); targets hold no spaces in these guides.
LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]+)\)")
COMMENT = re.compile(r"<!--.*?-->\n?", re.S)
# A fenced YAML block holding a vault tag: the docsite's lint parses YAML blocks, and plain YAML
# has no such tag; such a block is shown as text.
VAULT_YAML = re.compile(r"^```yaml\n((?:(?!```).*\n)*?.*!vault.*\n(?:(?!```).*\n)*?)```", re.M)


def guide_refs(copy: Path) -> list[str]:
    """The refs extra-docs.yml lists, in its order; each is docs/<ref>.md with '_' for '-'."""
    index = yaml.safe_load((copy / EXTRA_DOCS).read_text(encoding="utf-8"))
    return [entry for section in index["sections"] for entry in section["toctree"]]


def source_of(copy: Path, ref: str) -> Path:
    for name in (ref, ref.replace("_", "-")):
        path = copy / "docs" / (name + ".md")
        if path.is_file():
            return path
    raise SystemExit("extra-docs.yml lists %s, but docs/ has no %s.md" % (ref, ref))


def ref_of(target: str) -> str:
    return Path(target).stem.replace("-", "_")


def label_plain_fences(markdown: str) -> str:
    """Give a fenced block with no language ``text``: the docsite highlights an unnamed one as YAML."""
    lines, inside = [], False
    for line in markdown.split("\n"):
        if line.startswith("```"):
            if not inside and line.strip() == "```":
                line = "```text"
            inside = not inside
        lines.append(line)
    return "\n".join(lines)


def relink(markdown: str, refs: set[str], source_dir: Path) -> tuple[str, dict[str, str]]:
    """Links for the docsite: another guide by its label, web links as they are, the rest as text.

    A link to another guide becomes a placeholder word that pandoc passes through untouched;
    ``restore`` puts the :ref: role in its place once the page is reStructuredText.
    """
    roles = {}

    def replace(match):
        image, text, target = match.groups()
        if image:
            return ""  # a picture of the repository's: the page says what it shows
        if re.match(r"[a-z]+://|mailto:", target):
            return match.group(0)
        path = target.partition("#")[0]
        if path.endswith(".md") and (source_dir / path).resolve().parent == source_dir.resolve():
            if ref_of(path) in refs:
                placeholder = "GUIDEREF%04dGUIDEREF" % len(roles)
                # the anchor inside the other page is lost: the reference is to the page
                roles[placeholder] = ":ref:`%s <%s%s>`" % (rst_text(text), LABEL_PREFIX, ref_of(path))
                return placeholder
        return text

    return LINK.sub(replace, markdown), roles


def restore(rst: str, roles: dict[str, str]) -> str:
    for placeholder, role in roles.items():
        rst = rst.replace(placeholder, role)
    return rst


def rst_text(text: str) -> str:
    """Link text inside a :ref: role: no markup, and no angle brackets that would end the role."""
    return text.replace("`", "").replace("<", "").replace(">", "").replace("*", "")


def convert(markdown: str) -> str:
    """The page as pandoc writes it (pypandoc-binary, only in .venv/guides, which runs this script): no heading
    ids (antsibull-docs allows only its own labels); tables as list-table, whose cells may grow with a :ref:."""
    import pypandoc  # pylint: disable=import-outside-toplevel

    options = ["--wrap", "preserve", "--list-tables"]
    return pypandoc.convert_text(markdown, "rst", format="gfm-gfm_auto_identifiers", extra_args=options)


def write_pages(copy: Path) -> list[Path]:
    refs = guide_refs(copy)
    written = []
    (copy / RST_DIR).mkdir(parents=True, exist_ok=True)
    for ref in refs:
        source = source_of(copy, ref)
        text = VAULT_YAML.sub(lambda match: "```text\n" + match.group(1) + "```", source.read_text(encoding="utf-8"))
        markdown, roles = relink(label_plain_fences(COMMENT.sub("", text)), set(refs), source.parent)
        page = copy / RST_DIR / (ref + ".rst")
        rst = restore(convert(markdown), roles)
        page.write_text(".. _%s%s:\n\n%s" % (LABEL_PREFIX, ref, rst), encoding="utf-8")
        written.append(page)
    return written


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        raise SystemExit("usage: guides_to_rst.py COLLECTION_COPY")
    copy = Path(argv[1])
    pages = write_pages(copy)
    print("guides: %d docsite pages written under %s" % (len(pages), copy / RST_DIR))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
