#!/usr/bin/env python3
"""Figures from results/seed-NNN.json (run by tools/experiments under an
interpreter that has matplotlib): per seed paper, normalised completion time
per configuration for every measured headline (the papers' bar charts, with
95% CI error bars), and paper vs ours per headline. PNG and SVG, no dates in
the files so the same data gives the same bytes."""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "hv-experiments"
import matplotlib.pyplot as plt  # noqa: E402

META = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None}}


def save(fig, base):
    for ext in ("png", "svg"):
        fig.savefig(f"{base}.{ext}", metadata=META[ext])
    plt.close(fig)


def configs(doc, base):
    hs = [h for h in doc["headlines"] if h["figure"]]
    if not hs:
        return False
    fig, axes = plt.subplots(1, len(hs), figsize=(3.2 * len(hs) + 0.8, 3.4), squeeze=False)
    for ax, h in zip(axes[0], hs):
        names = list(h["figure"])
        means = [h["figure"][k][0] for k in names]
        errs = [h["figure"][k][1] or 0.0 for k in names]
        ax.bar(names, means, yerr=errs, capsize=3, color="#4c72b0")
        ax.axhline(1.0, color="#888888", lw=0.8)
        ax.set_title(h["key"], fontsize=9)
        ax.set_ylabel("normalised to " + names[0], fontsize=8)
        ax.tick_params(labelsize=8)
    fig.suptitle(f"Seed {doc['seed']}: configurations (hvsim, mean of {len(doc['reps'])} seeds)",
                 fontsize=10)
    fig.tight_layout()
    save(fig, base)
    return True


def paper_vs_ours(doc, base):
    hs = [h for h in doc["headlines"] if h["mean"] is not None and h["paper"] is not None]
    if not hs:
        return False
    fig, ax = plt.subplots(figsize=(1.6 * len(hs) + 2, 3.4))
    xs = range(len(hs))
    ax.bar([x - 0.2 for x in xs], [h["paper"] for h in hs], width=0.4, label="paper",
           color="#dd8452")
    ax.bar([x + 0.2 for x in xs], [h["mean"] for h in hs], width=0.4,
           yerr=[h["ci"] or 0.0 for h in hs], capsize=3, label="ours", color="#4c72b0")
    ax.set_xticks(list(xs), [f"{h['key']}\n({h['unit']})" for h in hs], fontsize=8)
    ax.axhline(0.0, color="#888888", lw=0.8)
    ax.set_title(f"Seed {doc['seed']}: paper vs ours", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save(fig, base)
    return True


def main(out_dir, seeds):
    os.makedirs(os.path.join(out_dir, "fig"), exist_ok=True)
    for s in seeds:
        with open(os.path.join(out_dir, f"seed-{s}.json")) as f:
            doc = json.load(f)
        base = os.path.join(out_dir, "fig", f"seed-{s}")
        made = [n for n, ok in (("configs", configs(doc, base + "-configs")),
                                ("paper", paper_vs_ours(doc, base + "-paper"))) if ok]
        print(f"exp: figures for seed {s}: {', '.join(made) or 'none (nothing measured)'}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
