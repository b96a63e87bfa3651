"""Where IDA*'s nodes go: the nodes generated in each iteration, by how far its f bound lies
below the optimal cost, summed over every solved IDA* run of a configuration.

An iteration with bound B of a run of optimal cost C is *layer* B - C: 0 is the last
iteration (it stops at its first solution), -2 the one before on a unit-cost board whose h
changes parity with every move, and so on. Both the report page (:mod:`.quality`) and the
static figures (:mod:`.figures`) draw from :func:`layer_shares`.
"""

from __future__ import annotations

import pandas as pd

from .data import ReportData

LAYER_COLUMNS = ["config", "layer", "nodes", "runs", "share"]
_ITERATIONS = "from_json(iterations, '[{\"bound\": \"BIGINT\", \"nodes_generated\": \"BIGINT\"}]')"


def layer_shares(data: ReportData) -> pd.DataFrame:
    """Per configuration with solved IDA* runs and layer (bound - optimal cost): the nodes
    generated in its iterations, the runs that reached it and their ``share`` of the
    configuration's nodes. Columns :data:`LAYER_COLUMNS`, layers ascending."""
    keys = list(data.config_keys)
    group = ", ".join(keys)
    layers = data.con.sql(
        f"SELECT {group}, it.bound - cost AS layer, sum(it.nodes_generated)::BIGINT AS nodes, count(*) AS runs "
        f"FROM (SELECT {group}, cost, unnest({_ITERATIONS}) AS it FROM results "
        "WHERE algorithm = 'idastar' AND status = 'solved' AND iterations IS NOT NULL) "
        f"GROUP BY {group}, layer").df()
    if layers.empty:
        return pd.DataFrame(columns=LAYER_COLUMNS)
    labels = data.rows.drop_duplicates("config")[keys + ["config"]]
    for key in keys:  # the rows' text columns are categoricals
        labels[key] = labels[key].astype(layers[key].dtype) if key == "size" else labels[key].astype(str)
    layers = layers.merge(labels, on=keys)
    layers["share"] = layers["nodes"] / layers.groupby("config", observed=True)["nodes"].transform("sum")
    layers = layers.sort_values(["config", "layer"])  # configurations in the report's order (their categories')
    return layers[LAYER_COLUMNS].reset_index(drop=True)
