"""Reading finished sweeps: SQL over their Parquet (DuckDB), sweep-vs-sweep comparison,
and the self-contained HTML report (bokeh)."""
