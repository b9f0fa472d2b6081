#!/usr/bin/python3
"""chart.py SUMMARY.json OUT.png — per-cell speedups over Lucene, one bar per engine per cell.

A bar above 1 is faster than Lucene (log scale); unsupported cells have no bar. Uses Debian's
python3-matplotlib with the Agg backend (no display needed).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: chart.py SUMMARY.json OUT.png")
    s = json.load(open(sys.argv[1]))
    engines = [e for e in s["engines"] if e != "lucene"]
    cells = list(dict.fromkeys(c["cell"] for c in s["cells"]))
    by = {(c["engine"], c["cell"]): c.get("speedup_vs_lucene") for c in s["cells"]}
    fig, ax = plt.subplots(figsize=(max(10, len(cells) * 0.45), 5))
    width = 0.8 / max(1, len(engines))
    for k, e in enumerate(engines):
        xs = [i + k * width for i in range(len(cells))]
        ys = [by.get((e, c)) or 0 for c in cells]
        g = s["engines"][e].get("geomean_speedup_vs_lucene")
        ax.bar(xs, ys, width, label=f"{e} (geomean {g}x)" if g else e)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("speedup over Lucene (per-cell median)")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(cells))])
    ax.set_xticklabels(cells, rotation=90, fontsize=7)
    ax.legend(fontsize=8)
    ax.set_title(f"{s['engines'].get('lucene', {}).get('docs', '?')} documents, {s['passes']} passes")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
