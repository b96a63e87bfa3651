/* A plain C IDA* with incremental Manhattan distance for the 15-puzzle, the yardstick
 * for tilesweep's numba kernel. Same successor order (U, L, R, D), parent pruning and
 * node accounting (root once, every child generated, goal test at generation).
 * Build: gcc -O3 -march=native -o c_idastar c_idastar.c
 * Use:   ./c_idastar 14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3   (goal: blank first)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int tiles[16], md[16][16], nbr[16][4], path[256];
static long long generated;
static int next_bound;

static int search(int blank, int g, int h, int bound, int last) {
    for (int m = 0; m < 4; m++) {
        if (m == 3 - last) continue;
        int t = nbr[blank][m];
        if (t < 0) continue;
        int tile = tiles[t];
        int hc = h + md[tile][blank] - md[tile][t];
        generated++;
        int f = g + 1 + hc;
        if (f > bound) { if (f < next_bound) next_bound = f; continue; }
        tiles[blank] = tile; tiles[t] = 0;
        path[g] = m;
        if (hc == 0) return g + 1;
        int found = search(t, g + 1, hc, bound, m);
        tiles[t] = tile; tiles[blank] = 0;
        if (found) return found;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 17) { fprintf(stderr, "usage: c_idastar 16 tiles (0 = blank)\n"); return 2; }
    int blank = 0, h = 0;
    for (int c = 0; c < 16; c++) { tiles[c] = atoi(argv[c + 1]); if (!tiles[c]) blank = c; }
    for (int t = 0; t < 16; t++)
        for (int c = 0; c < 16; c++)
            md[t][c] = t ? abs(t / 4 - c / 4) + abs(t % 4 - c % 4) : 0;
    int dr[4] = {-1, 0, 0, 1}, dc[4] = {0, -1, 1, 0};
    for (int c = 0; c < 16; c++)
        for (int m = 0; m < 4; m++) {
            int r = c / 4 + dr[m], k = c % 4 + dc[m];
            nbr[c][m] = (r >= 0 && r < 4 && k >= 0 && k < 4) ? r * 4 + k : -1;
        }
    for (int c = 0; c < 16; c++) h += md[tiles[c]][c];
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    generated = 1;
    int bound = h, cost = h == 0 ? 0 : -1;
    while (cost < 0) {
        next_bound = 1 << 30;
        int found = search(blank, 0, h, bound, -1);
        if (found) cost = found; else bound = next_bound;
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
    printf("{\"cost\": %d, \"nodes_generated\": %lld, \"cpu_seconds\": %.6f}\n", cost, generated, s);
    return 0;
}
