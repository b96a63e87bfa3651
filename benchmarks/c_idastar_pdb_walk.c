/* A plain C IDA* for the 15-puzzle with h = max(additive PDB, its mirror, walking distance)
 * and move pruning by an automaton: the yardstick for tilesweep's idastar_pdb_walk kernel,
 * the recipe of the strongest public C++ solvers. Same successor order (U, L, R, D), node
 * accounting (root once, every child generated, goal test at generation) and tables: the
 * PDB .npy files of a tilesweep store, the walking-distance link tables and the automaton,
 * written by benchmarks/korf100_pdb_walk.py into a setup file of whitespace-separated
 * integers (layout in read_setup). Every child gets all three values, as the C++ solver
 * computes them; with "lazy" the PDB is read only when walking distance cannot decide and
 * the mirror only when neither can (tilesweep's rule; the counts are the same).
 * Build: gcc -O3 -march=native -o c_idastar_pdb_walk c_idastar_pdb_walk.c
 * Use:   ./c_idastar_pdb_walk SETUP full|lazy   (one JSON line per board, then the total)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 16
#define MAXG 4
#define MAXD 256
#define WD_BITS 6
#define WD_MASK 63

static int *fsm, *link_v, *link_h, step[N * 4], goal_pos[N], refl_tile[N], refl_cell[N];
static int n_groups, group_k[MAXG], group_tiles[MAXG][N], tile_group[N];
static unsigned char *tables[MAXG];
static int tiles[N], pos[N], nbr[N][4], lazy;
static long long generated, expanded;
static int next_bound;

static int *read_ints(FILE *f, int count) {
    int *a = malloc(sizeof(int) * (count ? count : 1));
    for (int i = 0; i < count; i++)
        if (fscanf(f, "%d", &a[i]) != 1) { fprintf(stderr, "setup: too short\n"); exit(2); }
    return a;
}

static int read_int(FILE *f) { int *a = read_ints(f, 1), v = *a; free(a); return v; }

/* A .npy file's data: a uint8 array after its header. */
static unsigned char *read_npy(const char *path, long expected) {
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
    unsigned char head[12];
    if (fread(head, 1, 12, f) != 12 || memcmp(head, "\x93NUMPY", 6)) { fprintf(stderr, "not .npy: %s\n", path); exit(2); }
    long header = head[6] == 1 ? 10 + (head[8] | head[9] << 8)
                               : 12 + (head[8] | head[9] << 8 | head[10] << 16 | (long)head[11] << 24);
    unsigned char *data = malloc(expected);
    fseek(f, header, SEEK_SET);
    if ((long)fread(data, 1, expected, f) != expected) { fprintf(stderr, "short table: %s\n", path); exit(2); }
    fclose(f);
    return data;
}

/* fsm: S then S*4 transitions; link_v, link_h: P then P*8 entries each; step[64];
 * goal_pos, refl_tile, refl_cell: 16 each; groups G, then per group k, its k tiles and
 * its table's path; boards M, then per board 16 tiles and its two start patterns. */
static FILE *read_setup(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
    int s = read_int(f); fsm = read_ints(f, s * 4);
    int p = read_int(f); link_v = read_ints(f, p * 8);
    p = read_int(f); link_h = read_ints(f, p * 8);
    int *a = read_ints(f, 64); memcpy(step, a, sizeof step); free(a);
    a = read_ints(f, N); memcpy(goal_pos, a, sizeof goal_pos); free(a);
    a = read_ints(f, N); memcpy(refl_tile, a, sizeof refl_tile); free(a);
    a = read_ints(f, N); memcpy(refl_cell, a, sizeof refl_cell); free(a);
    n_groups = read_int(f);
    for (int t = 0; t < N; t++) tile_group[t] = -1;
    for (int g = 0; g < n_groups; g++) {
        group_k[g] = read_int(f);
        long size = 1;
        for (int i = 0; i < group_k[g]; i++) {
            group_tiles[g][i] = read_int(f);
            tile_group[group_tiles[g][i]] = g;
            size *= N - i;
        }
        char name[4096];
        if (fscanf(f, "%4095s", name) != 1) { fprintf(stderr, "setup: no table path\n"); exit(2); }
        tables[g] = read_npy(name, size);
    }
    return f;
}

static inline int rank(int g, int reflected) {
    int used = 0, r = 0;
    for (int i = 0; i < group_k[g]; i++) {
        int t = group_tiles[g][i];
        int c = reflected ? refl_cell[pos[refl_tile[t]]] : pos[t];
        r = r * (N - i) + c - __builtin_popcount(used & ((1 << c) - 1));
        used |= 1 << c;
    }
    return r;
}

static int is_goal(void) {
    for (int c = 0; c < N; c++) if (goal_pos[tiles[c]] != c) return 0;
    return 1;
}

/* Children of the node with blank ``blank`` at depth ``d``; ``vals``/``rvals`` its group
 * values, ``sum``/``rsum`` their sums, ``v``/``h`` its walking-distance patterns. */
static int search(int blank, int d, int bound, int q, int last, const int *vals, int sum,
                  const int *rvals, int rsum, int v, int h) {
    for (int m = 0; m < 4; m++) {
        int tgt = nbr[blank][m];
        if (tgt < 0 || m == 3 - last) continue;
        int nq = fsm[q * 4 + m];
        if (nq < 0) continue;
        generated++;
        int t = tiles[tgt];
        int v2 = v, h2 = h, k = step[t * 4 + m];
        if (m == 0 || m == 3) v2 = link_v[(v >> WD_BITS) * 8 + k];
        else h2 = link_h[(h >> WD_BITS) * 8 + k];
        int hc = (v2 & WD_MASK) + (h2 & WD_MASK), f = d + 1 + hc;
        tiles[blank] = t; tiles[tgt] = 0; pos[t] = blank; pos[0] = tgt;
        int g = tile_group[t], g2 = tile_group[refl_tile[t]], val = 0, rval = 0, s = sum, rs = rsum;
        if (!lazy || f <= bound || f < next_bound) {
            if (g >= 0) { val = tables[g][rank(g, 0)]; s += val - vals[g]; }
            if (s > hc) { hc = s; f = d + 1 + hc; }
            if (!lazy || f <= bound || f < next_bound) {
                if (g2 >= 0) { rval = tables[g2][rank(g2, 1)]; rs += rval - rvals[g2]; }
                if (rs > hc) { hc = rs; f = d + 1 + hc; }
            }
        }
        if (f > bound) {
            if (f < next_bound) next_bound = f;
            tiles[tgt] = t; tiles[blank] = 0; pos[t] = tgt; pos[0] = blank;
            continue;
        }
        if (hc == 0 && is_goal()) return d + 1;
        expanded++;
        int cvals[MAXG], crvals[MAXG];
        memcpy(cvals, vals, sizeof cvals); memcpy(crvals, rvals, sizeof crvals);
        if (g >= 0) cvals[g] = val;
        if (g2 >= 0) crvals[g2] = rval;
        int found = search(tgt, d + 1, bound, nq, m, cvals, s, crvals, rs, v2, h2);
        tiles[tgt] = t; tiles[blank] = 0; pos[t] = tgt; pos[0] = blank;
        if (found) return found;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[2], "full") && strcmp(argv[2], "lazy"))) {
        fprintf(stderr, "usage: c_idastar_pdb_walk SETUP full|lazy\n");
        return 2;
    }
    lazy = !strcmp(argv[2], "lazy");
    FILE *f = read_setup(argv[1]);
    int dr[4] = {-1, 0, 0, 1}, dc[4] = {0, -1, 1, 0};
    for (int c = 0; c < N; c++)
        for (int m = 0; m < 4; m++) {
            int r = c / 4 + dr[m], k = c % 4 + dc[m];
            nbr[c][m] = (r >= 0 && r < 4 && k >= 0 && k < 4) ? r * 4 + k : -1;
        }
    int boards = read_int(f);
    long long all_generated = 0, all_expanded = 0;
    double all_seconds = 0;
    for (int i = 0; i < boards; i++) {
        int blank = 0;
        for (int c = 0; c < N; c++) { tiles[c] = read_int(f); pos[tiles[c]] = c; if (!tiles[c]) blank = c; }
        int v = read_int(f), h = read_int(f);
        struct timespec a, b;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
        int vals[MAXG] = {0}, rvals[MAXG] = {0}, sum = 0, rsum = 0;
        for (int g = 0; g < n_groups; g++) {
            vals[g] = tables[g][rank(g, 0)]; sum += vals[g];
            rvals[g] = tables[g][rank(g, 1)]; rsum += rvals[g];
        }
        int h0 = (v & WD_MASK) + (h & WD_MASK);
        if (sum > h0) h0 = sum;
        if (rsum > h0) h0 = rsum;
        generated = 1; expanded = 0;
        int bound = h0, cost = -1;
        while (cost < 0) {
            next_bound = 1 << 30;
            expanded++;
            int found = search(blank, 0, bound, 0, -1, vals, sum, rvals, rsum, v, h);
            if (found) cost = found; else bound = next_bound;
        }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
        double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
        all_generated += generated; all_expanded += expanded; all_seconds += s;
        printf("{\"cost\": %d, \"nodes_generated\": %lld, \"nodes_expanded\": %lld, \"cpu_seconds\": %.6f}\n",
               cost, generated, expanded, s);
    }
    printf("{\"boards\": %d, \"nodes_generated\": %lld, \"nodes_expanded\": %lld, \"cpu_seconds\": %.6f}\n",
           boards, all_generated, all_expanded, all_seconds);
    return 0;
}
