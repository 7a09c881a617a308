#!/usr/bin/env python3
"""Draws BENCHMARKS.md's tables and SVG charts from the result files.

    python3 benches/charts.py           # rewrite them
    python3 benches/charts.py --check   # exit 1 if they are not what the result files give

Reads benches/results/load-pinned.csv and load-shared.csv (written by
benches/load.sh, one row per run) and side-by-side.csv (written by
`cargo bench -p foundry-catalog-benches --bench side_by_side`). Writes
benches/results/*.svg and replaces, in BENCHMARKS.md, the text between
`<!-- charts.py: NAME -->` and `<!-- /charts.py -->` with the chart and the
table of NAME, so that a picture never disagrees with its table. Only the
standard library; the output depends on nothing but the result files.
"""

import csv
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benches", "results")
DOC = os.path.join(ROOT, "BENCHMARKS.md")
OURS, NGINX, PAGES = "foundry-catalog", "nginx", "foundry-catalog pages"
COLOURS = ["#2f6db5", "#d9822b", "#6aa84f"]


def read(name):
    with open(os.path.join(RESULTS, name), newline="") as f:
        return list(csv.DictReader(f))


def load_groups(rows):
    """{(products, encoding, server): [row, ...]} in a stable order."""
    groups = {}
    for row in rows:
        key = (int(row["products"]), row["accept_encoding"], row["server"])
        groups.setdefault(key, []).append(row)
    return groups


def load_order(groups):
    sizes = sorted({k[0] for k in groups})
    encodings = [e for e in ("identity", "br, gzip") if any(k[1] == e for k in groups)]
    return sizes, encodings


def servers(groups):
    """The servers measured: ours, nginx, and ours on pages when run."""
    return [s for s in (OURS, NGINX, PAGES) if any(k[2] == s for k in groups)]


def numbers(rows, column):
    return [float(r[column]) for r in rows]


def load_table(rows):
    groups = load_groups(rows)
    sizes, encodings = load_order(groups)
    out = [
        "| products | Accept-Encoding | server | req/s (median) | req/s (range) | p50 (median) | p99 (median) | p99 (range) | CPU µs a request (median) | rounds |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size in sizes:
        for encoding in encodings:
            for server in servers(groups):
                runs = groups.get((size, encoding, server))
                if not runs:
                    continue
                rps, p50, p99, cpu = (numbers(runs, c) for c in ("req_per_s", "p50_ms", "p99_ms", "cpu_us_per_request"))
                out.append(
                    f"| {size:,} | {encoding} | {server} | {statistics.median(rps):,.0f} | {min(rps):,.0f}–{max(rps):,.0f} "
                    f"| {statistics.median(p50):.2f} ms | {statistics.median(p99):.2f} ms | {min(p99):.2f}–{max(p99):.2f} ms "
                    f"| {statistics.median(cpu):.2f} µs | {len(runs)} |"
                )
    return "\n".join(out)


def nice_step(rough):
    """The smallest 1, 2 or 5 times a power of ten at least `rough`."""
    power = 10 ** len(str(int(rough))) / 10 if rough >= 1 else 1
    for factor in (1, 2, 5, 10):
        if power * factor >= rough:
            return power * factor
    return power * 10


def bar_chart(title, unit, groups, series, values, whiskers=None):
    """A grouped bar chart: for each group, one bar per series."""
    width, height, left, bottom, top = 760, 340, 70, 60, 40
    plot_w, plot_h = width - left - 20, height - top - bottom
    peak = max(max(hi for _, hi in whiskers.values()) if whiskers else 0, max(values.values()))
    step = nice_step(peak / 5)
    ticks = int(peak // step) + 1
    scale = plot_h / (step * ticks)
    slot = plot_w / len(groups)
    bar = slot * 0.7 / len(series)
    svg = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2:.1f}" y="22" text-anchor="middle" font-size="15">{title}</text>',
    ]
    for i in range(ticks + 1):
        value = step * i
        y = top + plot_h - value * scale
        svg.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{value:,.0f}</text>')
    svg.append(f'<text x="14" y="{top + plot_h / 2:.1f}" transform="rotate(-90 14 {top + plot_h / 2:.1f})" text-anchor="middle">{unit}</text>')
    for g, group in enumerate(groups):
        x0 = left + g * slot + slot * 0.15
        for s, name in enumerate(series):
            value = values.get((group, name))
            if value is None:
                continue
            x = x0 + s * bar
            y = top + plot_h - value * scale
            svg.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{value * scale:.1f}" fill="{COLOURS[s]}"/>')
            if whiskers and (group, name) in whiskers:
                lo, hi = whiskers[(group, name)]
                cx = x + bar / 2
                y_lo, y_hi = top + plot_h - lo * scale, top + plot_h - hi * scale
                svg.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y_lo:.1f}" y2="{y_hi:.1f}" stroke="black"/>')
        label_x = left + g * slot + slot / 2
        for line, text in enumerate(group.split("\n")):
            svg.append(f'<text x="{label_x:.1f}" y="{top + plot_h + 18 + 14 * line}" text-anchor="middle">{text}</text>')
    for s, name in enumerate(series):
        x = left + 10 + s * 190
        svg.append(f'<rect x="{x}" y="{height - 16}" width="12" height="12" fill="{COLOURS[s]}"/>')
        svg.append(f'<text x="{x + 18}" y="{height - 6}">{name}</text>')
    svg.append("</svg>")
    return "\n".join(svg) + "\n"


def load_chart(rows, setup):
    groups = load_groups(rows)
    sizes, encodings = load_order(groups)
    names, values, whiskers = [], {}, {}
    for size in sizes:
        for encoding in encodings:
            name = f"{size:,} products\n{encoding}"
            names.append(name)
            for server in servers(groups):
                runs = groups.get((size, encoding, server))
                if runs:
                    rps = numbers(runs, "req_per_s")
                    values[(name, server)] = statistics.median(rps)
                    whiskers[(name, server)] = (min(rps), max(rps))
    title = f"req/s by catalog size ({setup}): median, and the range of the rounds"
    return bar_chart(title, "requests per second", names, servers(groups), values, whiskers)


def side_by_side(rows):
    threads = rows[0]["threads"] if rows else "all"
    series = ["ours, 1 thread", f"ours, {threads} threads", "typify 0.8.0, 1 thread"]
    columns = ["ours_1_thread_us", "ours_all_threads_us", "typify_1_thread_us"]
    names, values = [], {}
    table = [
        f"| corpus | types | rounds | {series[0]} | {series[1]} | {series[2]} | typify ÷ ours, 1 thread | typify ÷ ours, {threads} threads |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        name = f"{row['corpus']}, {int(row['types']):,}"
        names.append(name)
        for label, column in zip(series, columns):
            values[(name, label)] = float(row[column])
        one, all_, theirs = (float(row[c]) for c in columns)
        table.append(
            f"| {row['corpus']} | {int(row['types']):,} | {row['rounds']} | {one:.1f} µs | {all_:.1f} µs | {theirs:.1f} µs | {theirs / one:.1f}× | {theirs / all_:.1f}× |"
        )
    chart = bar_chart("Generation time per record type (lower is better)", "µs per record type", names, series, values)
    return chart, "\n".join(table)


def outputs():
    """{path: text} of everything this script writes, BENCHMARKS.md included."""
    files, sections = {}, {}
    for setup, label in (("pinned", "on CPUs of their own"), ("shared", "sharing the CPUs")):
        rows = read(f"load-{setup}.csv")
        svg = f"load-{setup}.svg"
        files[os.path.join(RESULTS, svg)] = load_chart(rows, label)
        sections[f"load-{setup}"] = f"![req/s {label}](benches/results/{svg})\n\n{load_table(rows)}"
    chart, table = side_by_side(read("side-by-side.csv"))
    files[os.path.join(RESULTS, "side-by-side.svg")] = chart
    sections["side-by-side"] = f"![generation time per record type](benches/results/side-by-side.svg)\n\n{table}"
    with open(DOC) as f:
        doc = f.read()
    for name, body in sections.items():
        start = f"<!-- charts.py: {name} -->"
        end = "<!-- /charts.py -->"
        i = doc.index(start) + len(start)
        j = doc.index(end, i)
        doc = doc[:i] + "\n" + body + "\n" + doc[j:]
    files[DOC] = doc
    return files


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for path, text in outputs().items():
        try:
            with open(path) as f:
                current = f.read()
        except FileNotFoundError:
            current = None
        if current == text:
            continue
        if check:
            stale.append(os.path.relpath(path, ROOT))
        else:
            with open(path, "w") as f:
                f.write(text)
    if stale:
        sys.exit("stale: " + ", ".join(stale) + "; hint: run `python3 benches/charts.py` and commit the result")


if __name__ == "__main__":
    main()
