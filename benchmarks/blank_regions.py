"""How many blank regions a pattern's placements leave: the size of a zero-aware table.

    python benchmarks/blank_regions.py

A placement of k pattern tiles leaves N - k free cells; the blank roams each connected set of
them (a blank region) at no cost in tilesweep's tables, which keep one entry per placement
(the first region reached). A zero-aware table keeps one per placement and region. The regions
depend only on the set of occupied cells, so counting them over the C(N, k) cell sets gives,
for every placement, the share with 1, 2, ... regions and the mean: the zero-aware table's
entries per entry of today's table.
"""

from __future__ import annotations

import itertools
from collections import Counter


def neighbours(size: int) -> list[list[int]]:
    n = size * size
    steps = ((-1, 0), (0, -1), (0, 1), (1, 0))
    return [[(r + dr) * size + c + dc for dr, dc in steps if 0 <= r + dr < size and 0 <= c + dc < size]
            for r, c in (divmod(cell, size) for cell in range(n))]


def regions(free: set[int], nbr: list[list[int]]) -> int:
    """Connected components of the cells ``free``."""
    free, count = set(free), 0
    while free:
        stack, count = [free.pop()], count + 1
        while stack:
            for d in nbr[stack.pop()]:
                if d in free:
                    free.remove(d)
                    stack.append(d)
    return count


def histogram(size: int, k: int) -> Counter:
    nbr, cells = neighbours(size), set(range(size * size))
    return Counter(regions(cells - set(taken), nbr) for taken in itertools.combinations(sorted(cells), k))


def main() -> None:
    for size, k in ((4, 3), (4, 6), (4, 7), (4, 8), (5, 6)):
        counts = histogram(size, k)
        total = sum(counts.values())
        shares = ", ".join(f"{r}: {v / total:.1%}" for r, v in sorted(counts.items()))
        mean = sum(r * v for r, v in counts.items()) / total
        print(f"{size}x{size}, {k} tiles: placements by blank regions {shares}; mean {mean:.3f} regions")


if __name__ == "__main__":
    main()
