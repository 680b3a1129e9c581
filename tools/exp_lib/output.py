"""results/: per seed paper one Markdown table, one CSV and one JSON (the
figures' input), all deterministic for a given seed list and scale."""
import csv
import io
import json
import os

from .registry import PAPERS


def num(x, nd=2):
    return "" if x is None else f"{x:.{nd}f}"


def ours(r):
    if r["mean"] is None:
        return "not yet" if r["status"].startswith("not yet") else "-"
    return num(r["mean"]) + (f" ± {num(r['ci'])}" if r["ci"] is not None else "")


def paper(h):
    return "-" if h.paper is None else num(h.paper)


def markdown(seed, rows, meta):
    out = [f"# Seed {seed}: {PAPERS[seed]}", "",
           f"Scale `{meta['scale']}`; repeats over seeds {meta['reps_text']}; ours is the mean "
           "± half-width of the 95% confidence interval (Student's t). "
           "Regenerate: `" + meta["command"] + "`.", "",
           "| headline | claim | unit | paper | ours | n | backend | status |",
           "|---|---|---|---:|---:|---:|---|---|"]
    for h, r in rows:
        out.append(f"| {h.key} | {h.claim} | {h.unit} | {paper(h)} | {ours(r)} | "
                   f"{len(r['values'])} | {h.backend} | {r['status']} |")
    out += ["", "Paper's figure in words:", ""]
    out += [f"- `{h.key}`: {h.paper_text}" for h, _ in rows]
    figs = [(h, r) for h, r in rows if r["figure"]]
    if figs:
        out += ["", "Figure data (normalised to the first configuration; mean ± 95% CI):", ""]
        for h, r in figs:
            cells = ", ".join(f"{k} {num(m, 3)}" + (f" ± {num(c, 3)}" if c is not None else "")
                              for k, (m, c) in r["figure"].items())
            out.append(f"- `{h.key}`: {cells}")
    vals = [(h, r) for h, r in rows if r["values"]]
    if vals:
        out += ["", "Per repeat seed:", "", "| headline | " + " | ".join(meta["reps"]) + " |",
                "|---|" + "---:|" * len(meta["reps"])]
        for h, r in vals:
            out.append(f"| {h.key} | " + " | ".join(num(v) for v in r["values"]) + " |")
    return "\n".join(out) + "\n"


CSV_FIELDS = ["seed", "headline", "claim", "unit", "backend", "paper", "paper_text", "ours_mean",
              "ours_ci95", "n", "values", "status"]


def csv_text(seed, rows):
    f = io.StringIO()
    w = csv.writer(f, lineterminator="\n")
    w.writerow(CSV_FIELDS)
    for h, r in rows:
        w.writerow([seed, h.key, h.claim, h.unit, h.backend, paper(h) if h.paper is not None else "",
                    h.paper_text, num(r["mean"], 4), num(r["ci"], 4), len(r["values"]),
                    " ".join(num(v, 4) for v in r["values"]), r["status"]])
    return f.getvalue()


def json_text(seed, rows, meta):
    doc = {"seed": seed, "paper": PAPERS[seed], "scale": meta["scale"], "reps": meta["reps"],
           "headlines": [{"key": h.key, "claim": h.claim, "unit": h.unit, "paper": h.paper,
                          "mean": r["mean"], "ci": r["ci"], "values": r["values"],
                          "status": r["status"],
                          "figure": {k: list(v) for k, v in r["figure"].items()}}
                         for h, r in rows]}
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


def write(out_dir, seed, rows, meta):
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for ext, text in (("md", markdown(seed, rows, meta)), ("csv", csv_text(seed, rows)),
                      ("json", json_text(seed, rows, meta))):
        p = os.path.join(out_dir, f"seed-{seed}.{ext}")
        with open(p, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        paths.append(p)
    return paths


def write_index(out_dir, per_seed, meta):
    out = ["# Experiments: paper vs ours", "",
           f"Scale `{meta['scale']}`, repeats over seeds {meta['reps_text']}. "
           "One table per seed paper: " +
           ", ".join(f"[{s}](seed-{s}.md)" for s in per_seed) + ".", "",
           "| seed | headline | unit | paper | ours | status |", "|---|---|---|---:|---:|---|"]
    for s, rows in per_seed.items():
        for h, r in rows:
            out.append(f"| {s} | {h.key} | {h.unit} | {paper(h)} | {ours(r)} | {r['status']} |")
    p = os.path.join(out_dir, "README.md")
    with open(p, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    return p
