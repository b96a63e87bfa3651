/* A plain C IDA* with an additive pattern database (and its mirror): the yardstick for
 * tilesweep's idastar_pdb kernel that does the same lookups, for the 15- and 24-puzzle.
 * The tables are a tilesweep store's own .npy files, mapped read-only as tilesweep maps
 * them; placements are ranked as solver/ranking.py ranks them (mixed radix N, N-1, ...,
 * the digit of a tile its cell among the cells not taken by earlier tiles), the mirror as
 * solver/hstate.py's group_rank reads it (tile refl_tile[t] on cell refl_cell[c]). Same
 * successor order (U, L, R, D), parent or automaton pruning, node accounting (the root
 * generated once and expanded once per iteration, every child generated, the goal test at
 * generation within the bound) and lookup rule: a child's moved group is read, and its
 * mirror group only when the regular sum does not already cut the child off.
 * "plain" reads each entry when it is needed; "prefetch" first issues the lookups of all
 * children of a node (and their mirrors when a table exceeds the last-level cache, given as
 * CACHE_BYTES), as tilesweep does (solver/idastar.py's plan_children, solver/idastar_pdb.py's
 * mirrors_early).
 * Setup file (whitespace-separated, written by benchmarks/pdb_yardstick.py): size; automaton
 * states S (0: parent pruning) then S*4 transitions; goal_pos, refl_tile, refl_cell (N each);
 * reflect (0/1); groups G, then per group k, its k tiles and its table's path; boards M, then
 * N tiles each.
 * Build: gcc -O3 -march=native -o c_idastar_pdb c_idastar_pdb.c
 * Use:   ./c_idastar_pdb SETUP plain|prefetch [CACHE_BYTES]   (one JSON line per board, then the total)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAXN 25
#define MAXG 8

static int N, size, *fsm, use_fsm, reflect, early_mirrors, prefetching;
static long cache_bytes = 64L << 20; /* the last-level cache (argument 3) */
static int goal_pos[MAXN], refl_tile[MAXN], refl_cell[MAXN], nbr[MAXN][4];
static int n_groups, group_k[MAXG], group_tiles[MAXG][MAXN], tile_group[MAXN];
static const unsigned char *tables[MAXG];
static int tiles[MAXN], pos[MAXN];
static long long generated, expanded;
static int next_bound;

static int read_int(FILE *f) {
    int v;
    if (fscanf(f, "%d", &v) != 1) { fprintf(stderr, "setup: too short\n"); exit(2); }
    return v;
}

static void read_ints(FILE *f, int *a, int count) { for (int i = 0; i < count; i++) a[i] = read_int(f); }

/* A .npy file's uint8 data, mapped read-only (shared with every other reader). */
static const unsigned char *map_npy(const char *path, long expected) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
    unsigned char head[12];
    if (read(fd, head, 12) != 12 || memcmp(head, "\x93NUMPY", 6)) { fprintf(stderr, "not .npy: %s\n", path); exit(2); }
    long header = head[6] == 1 ? 10 + (head[8] | head[9] << 8)
                               : 12 + (head[8] | head[9] << 8 | head[10] << 16 | (long)head[11] << 24);
    long length = lseek(fd, 0, SEEK_END);
    if (length != header + expected) { fprintf(stderr, "table of the wrong length: %s\n", path); exit(2); }
    const unsigned char *data = mmap(NULL, length, PROT_READ, MAP_SHARED, fd, 0);
    if (data == MAP_FAILED) { fprintf(stderr, "cannot map %s\n", path); exit(2); }
    close(fd);
    return data + header;
}

static FILE *read_setup(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
    size = read_int(f);
    N = size * size;
    int states = read_int(f);
    use_fsm = states > 0;
    fsm = malloc(sizeof(int) * (states * 4 + 1));
    read_ints(f, fsm, states * 4);
    read_ints(f, goal_pos, N);
    read_ints(f, refl_tile, N);
    read_ints(f, refl_cell, N);
    reflect = read_int(f);
    n_groups = read_int(f);
    for (int t = 0; t < N; t++) tile_group[t] = -1;
    for (int g = 0; g < n_groups; g++) {
        group_k[g] = read_int(f);
        long count = 1;
        for (int i = 0; i < group_k[g]; i++) {
            group_tiles[g][i] = read_int(f);
            tile_group[group_tiles[g][i]] = g;
            count *= N - i;
        }
        char name[4096];
        if (fscanf(f, "%4095s", name) != 1) { fprintf(stderr, "setup: no table path\n"); exit(2); }
        tables[g] = map_npy(name, count);
        if (reflect && count > cache_bytes) early_mirrors = 1;
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

/* The table index of the child made by moving tile t from tgt onto the blank's cell. */
static inline int child_rank(int g, int t, int blank, int tgt, int reflected) {
    pos[t] = blank;
    int r = rank(g, reflected);
    pos[t] = tgt;
    return r;
}

/* Children of the node with blank ``blank`` at depth ``d`` (automaton state q, last move
 * ``last``); ``vals``/``rvals`` its group values, ``sum``/``rsum`` their sums. */
static int search(int blank, int d, int bound, int q, int last, const int *vals, int sum,
                  const int *rvals, int rsum) {
    int ranks[4], rranks[4];
    if (prefetching)
        for (int m = 0; m < 4; m++) {
            int tgt = nbr[blank][m];
            if (tgt < 0 || m == 3 - last) continue;
            int t = tiles[tgt], g = tile_group[t];
            if (g >= 0) { ranks[m] = child_rank(g, t, blank, tgt, 0); __builtin_prefetch(tables[g] + ranks[m]); }
            int g2 = tile_group[refl_tile[t]];
            if (early_mirrors && g2 >= 0) {
                rranks[m] = child_rank(g2, t, blank, tgt, 1);
                __builtin_prefetch(tables[g2] + rranks[m]);
            }
        }
    for (int m = 0; m < 4; m++) {
        int tgt = nbr[blank][m];
        if (tgt < 0 || m == 3 - last) continue;
        int nq = 0;
        if (use_fsm) {
            nq = fsm[q * 4 + m];
            if (nq < 0) continue;
        }
        generated++;
        int t = tiles[tgt];
        tiles[blank] = t; tiles[tgt] = 0; pos[t] = blank; pos[0] = tgt;
        int g = tile_group[t], val = 0, s = sum;
        if (g >= 0) { val = tables[g][prefetching ? ranks[m] : rank(g, 0)]; s += val - vals[g]; }
        int hc = s, f = d + 1 + hc, g2 = -1, rval = 0, rs = rsum;
        if (reflect && (f <= bound || f < next_bound)) {
            g2 = tile_group[refl_tile[t]];
            if (g2 >= 0) {
                rval = tables[g2][early_mirrors && prefetching ? rranks[m] : rank(g2, 1)];
                rs += rval - rvals[g2];
            }
            if (rs > hc) { hc = rs; f = d + 1 + hc; }
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
        int found = search(tgt, d + 1, bound, nq, m, cvals, s, crvals, rs);
        tiles[tgt] = t; tiles[blank] = 0; pos[t] = tgt; pos[0] = blank;
        if (found) return found;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4 || (strcmp(argv[2], "plain") && strcmp(argv[2], "prefetch"))) {
        fprintf(stderr, "usage: c_idastar_pdb SETUP plain|prefetch [CACHE_BYTES]\n");
        return 2;
    }
    prefetching = !strcmp(argv[2], "prefetch");
    if (argc == 4) cache_bytes = atol(argv[3]);
    FILE *f = read_setup(argv[1]);
    int dr[4] = {-1, 0, 0, 1}, dc[4] = {0, -1, 1, 0};
    for (int c = 0; c < N; c++)
        for (int m = 0; m < 4; m++) {
            int r = c / size + dr[m], k = c % size + dc[m];
            nbr[c][m] = (r >= 0 && r < size && k >= 0 && k < size) ? r * size + k : -1;
        }
    int boards = read_int(f);
    long long all_generated = 0, all_expanded = 0;
    double all_seconds = 0;
    for (int i = 0; i < boards; i++) {
        int blank = 0;
        for (int c = 0; c < N; c++) { tiles[c] = read_int(f); pos[tiles[c]] = c; if (!tiles[c]) blank = c; }
        struct timespec a, b;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
        int vals[MAXG] = {0}, rvals[MAXG] = {0}, sum = 0, rsum = 0;
        for (int g = 0; g < n_groups; g++) {
            vals[g] = tables[g][rank(g, 0)]; sum += vals[g];
            if (reflect) { rvals[g] = tables[g][rank(g, 1)]; rsum += rvals[g]; }
        }
        int h0 = sum > rsum ? sum : rsum;
        generated = 1; expanded = 0;
        int bound = h0, cost = is_goal() ? 0 : -1;
        while (cost < 0) {
            next_bound = 1 << 30;
            expanded++;
            int found = search(blank, 0, bound, 0, -1, vals, sum, rvals, rsum);
            if (found) cost = found; else bound = next_bound;
        }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
        double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
        all_generated += generated; all_expanded += expanded; all_seconds += s;
        printf("{\"cost\": %d, \"nodes_generated\": %lld, \"nodes_expanded\": %lld, \"cpu_seconds\": %.6f}\n",
               cost, generated, expanded, s);
        fflush(stdout);
    }
    printf("{\"boards\": %d, \"nodes_generated\": %lld, \"nodes_expanded\": %lld, \"cpu_seconds\": %.6f}\n",
           boards, all_generated, all_expanded, all_seconds);
    return 0;
}
