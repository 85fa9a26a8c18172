"""Text from an experiment file is drawn as written (issue 51): matplotlib read text between two `$` as mathtext and
failed the drawing where it could not parse it, so a caption or a level label such as `$x^^2$` left the figure,
and the report that shows it, unwritten."""

from __future__ import annotations

import pandas as pd
from PIL import Image

from figures import generic
from figures.common import ExperimentData

UNPARSABLE = "$x^^2$"  # between two $, what mathtext cannot parse


def _data() -> ExperimentData:
    rows = [
        {
            "paper": "demo",
            "experiment": "sweep",
            "flows_n": n,
            "queue": queue,
            "seed": seed,
            "run_key": f"{queue}-{n}-{seed}",
            "scope": "all",
            "metric": "e2e_delay_ms_mean",
            "value": 10.0 * n + seed,
        }
        for n in (1, 2)
        for queue in (f"RED {UNPARSABLE}", "DropTail")
        for seed in (1, 2)
    ]
    levels = {"flows_n": [1, 2], "queue": [f"RED {UNPARSABLE}", "DropTail"]}
    return ExperimentData(pd.DataFrame(rows), pd.DataFrame(), ["flows_n", "queue"], levels)


def test_a_caption_and_a_level_label_mathtext_cannot_parse_are_drawn(tmp_path):
    artifact = {
        "id": "delay",
        "experiment": "sweep",
        "metric": "e2e_delay_ms_mean",
        "x": "flows_n",
        "hue": "queue",
        "caption": f"Fig. 1: delay {UNPARSABLE} and a price of $5",
    }
    paths = generic.metric_vs_axis(_data(), tmp_path / "delay", artifact)
    pngs = [p for p in paths if p.suffix == ".png"]
    assert pngs and all(Image.open(p).format == "PNG" for p in pngs)
