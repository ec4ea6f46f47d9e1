#!/usr/bin/env python3
"""Checks an HTML report as a browser read it back (chromium --dump-dom)
against the JSON report of the same run: the summary table's rows (release,
site, count, verdict) in order, a section per site group with its site, a
figure per picture each holding an SVG, and nothing that reaches outside
the page (no src, no href but a fragment, no url() in a style).

    html_report_check.py DOM_FILE REPORT_JSON [--min-figures N]
"""

import argparse
import json
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    """What the checks need of the DOM, gathered in one pass."""

    def __init__(self):
        super().__init__()
        self.rows = []  # cells of each summary-table body row
        self.groups = []  # ids of the site-group articles
        self.group_sites = {}  # article id -> the <code> text of its heading
        self.figures = 0
        self.svgs_in_figures = 0
        self.outside = []  # attributes that reach outside the page
        self.stack = []
        self.cell = None
        self.in_table = False
        self.in_h3 = None
        self.in_code = False
        self.in_figure = False
        self.styles = []
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for name, value in attrs:
            value = value or ""
            if name == "src" or name == "srcset" or name.startswith("on"):
                self.outside.append(f"<{tag} {name}={value!r}>")
            if name in ("href", "xlink:href", "action", "formaction") and not value.startswith("#"):
                self.outside.append(f"<{tag} {name}={value!r}>")
            if name == "style" and "url(" in value:
                self.outside.append(f"<{tag} style={value!r}>")
        if tag in ("script", "link", "img", "iframe", "object", "embed", "base"):
            self.outside.append(f"<{tag}>")
        if tag == "meta" and "http-equiv" in a:
            self.outside.append("<meta http-equiv>")
        if tag == "table" and a.get("id") == "summary-table":
            self.in_table = True
        if self.in_table and tag == "tr" and "class" in a:
            self.rows.append([])
        if self.in_table and tag == "td":
            self.cell = ""
        if tag == "article":
            self.groups.append(a.get("id"))
        if tag == "h3" and self.groups:
            self.in_h3 = self.groups[-1]
        if tag == "code" and self.in_h3:
            self.in_code = True
        if tag == "figure":
            self.figures += 1
            self.in_figure = True
        if tag == "svg" and self.in_figure:
            self.svgs_in_figures += 1
        if tag == "style":
            self.in_style = True

    def handle_endtag(self, tag):
        if tag == "table":
            self.in_table = False
        if tag == "td" and self.cell is not None:
            self.rows[-1].append(self.cell.strip())
            self.cell = None
        if tag == "h3":
            self.in_h3 = None
        if tag == "code":
            self.in_code = False
        if tag == "figure":
            self.in_figure = False
        if tag == "style":
            self.in_style = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        if self.in_code and self.in_h3:
            self.group_sites[self.in_h3] = self.group_sites.get(self.in_h3, "") + data
        if self.in_style:
            self.styles.append(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dom")
    ap.add_argument("report")
    ap.add_argument("--min-figures", type=int, default=0)
    args = ap.parse_args()
    with open(args.dom, encoding="utf-8") as f:
        dom = f.read()
    with open(args.report, encoding="utf-8") as f:
        report = json.load(f)
    page = Page()
    page.feed(dom)
    errors = []
    want = [[g["release"], g["site"], str(g["count"]), g["verdict"]] for g in report["groups"]]
    got = [[r[0], r[1], r[3], r[4]] if len(r) == 6 else r for r in page.rows]
    if got != want:
        errors.append(f"summary rows {got}, the JSON report's groups {want}")
    if not want:
        errors.append("the report has no site group: the check would prove nothing")
    sites = [page.group_sites.get(f"group-{i}", "") for i in range(len(want))]
    if sites != [w[1] for w in want]:
        errors.append(f"site sections {sites} (ids {page.groups}), expected {[w[1] for w in want]}")
    if page.svgs_in_figures != page.figures:
        errors.append(f"{page.figures} figures but {page.svgs_in_figures} SVGs in them")
    if page.figures < args.min_figures:
        errors.append(f"{page.figures} figures, expected at least {args.min_figures}")
    if any("url(" in s or "@import" in s for s in page.styles):
        errors.append("a stylesheet reaches outside the page")
    for low in ("http://", "https://", "file://"):
        if low in dom:
            errors.append(f"the page names a URL ({low})")
    errors += [f"reaches outside the page: {o}" for o in page.outside]
    if errors:
        print(f"{args.dom}: FAILED", file=sys.stderr)
        for e in errors:
            print("  " + e, file=sys.stderr)
        sys.exit(1)
    print(f"{args.dom}: {len(want)} rows and site sections, {page.figures} figures with an SVG each, nothing outside")


if __name__ == "__main__":
    main()
