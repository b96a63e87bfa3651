/* A plain C A* with Manhattan distance for the 8- and 15-puzzle, the yardstick for
 * tilesweep's A* kernel. Same accounting and tie-breaks as tilesweep (docs/design.md):
 * successors U, L, R, D; parent pruning by the move that last improved a board; the root
 * and every child after pruning count as generated; the goal test when a board leaves the
 * open list; ties on f to the larger g, then first in, first out; a board reached by a
 * shorter path gets that g and is queued again, the older entry skipped when it comes out.
 *
 * Data: a board packed 4 bits a cell in a uint64; an open-addressing hash table (linear
 * probing, at most half full) whose slots hold the key and its best g, last move and
 * blank cell; an open list of buckets by (f, h = f - g), each a FIFO of keys.
 *
 * Build: gcc -O3 -march=native -o c_astar c_astar.c
 * Use:   ./c_astar SIZE GOAL_TILES... < boards     (one board a line, 0 = blank)
 * Prints one line "cost generated expanded" per board, then a JSON line with the totals
 * and the CPU seconds of the searches (reading and printing excluded).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_G 1023
#define NO_MOVE 4

typedef struct { uint64_t key, val; } slot_t;  /* val: g | move << 16 | blank << 20 */

static int n, size, md[16][16], nbr[16][4], hcols;
static uint64_t goal_key;
static slot_t *tab;
static uint64_t tmask;
static long long count;
static uint64_t *ekey;          /* open list entries: key, next entry of the bucket */
static int32_t *enext;
static long long ecap, eused;
static int32_t efree;
static int32_t *head, *tail;   /* per bucket (f * hcols + h): first and last entry */
static int frows, cur_f, cur_h;
static long long n_open;

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29; x *= 0x94D049BB133111EBULL;
    x ^= x >> 32; return x;
}

static inline slot_t *find(uint64_t key) {
    uint64_t i = mix(key) & tmask;
    while (tab[i].key && tab[i].key != key) i = (i + 1) & tmask;
    return &tab[i];
}

static void grow_table(void) {
    slot_t *old = tab;
    uint64_t old_cap = tmask + 1;
    tmask = 2 * old_cap - 1;
    tab = calloc(tmask + 1, sizeof(slot_t));
    for (uint64_t i = 0; i < old_cap; i++)
        if (old[i].key) *find(old[i].key) = old[i];
    free(old);
}

static void push(int f, int h, uint64_t key) {
    if (f >= frows) {
        int rows = 2 * f + 2;
        head = realloc(head, sizeof(int32_t) * rows * hcols);
        tail = realloc(tail, sizeof(int32_t) * rows * hcols);
        for (long long i = (long long)frows * hcols; i < (long long)rows * hcols; i++) head[i] = tail[i] = -1;
        frows = rows;
    }
    int32_t e;
    if (efree >= 0) { e = efree; efree = enext[e]; }
    else {
        if (eused == ecap) {
            ecap *= 2;
            ekey = realloc(ekey, sizeof(uint64_t) * ecap);
            enext = realloc(enext, sizeof(int32_t) * ecap);
        }
        e = (int32_t)eused++;
    }
    ekey[e] = key; enext[e] = -1;
    int b = f * hcols + h;
    if (tail[b] < 0) head[b] = e; else enext[tail[b]] = e;
    tail[b] = e;
    n_open++;
    if (f < cur_f || (f == cur_f && h < cur_h)) { cur_f = f; cur_h = h; }
}

static int pop(int *f, int *h, uint64_t *key) {
    if (n_open == 0) return 0;
    for (;;) {
        int b = cur_f * hcols + cur_h;
        int32_t e = head[b];
        if (e >= 0) {
            head[b] = enext[e];
            if (head[b] < 0) tail[b] = -1;
            *key = ekey[e]; enext[e] = efree; efree = e;
            *f = cur_f; *h = cur_h;
            n_open--;
            return 1;
        }
        if (++cur_h == hcols) { cur_h = 0; cur_f++; }
    }
}

/* A* from the board `start`; returns the cost (-1: none), counts in *gen, *exp. */
static int astar(const int *start, long long *gen, long long *exp) {
    uint64_t key = 0;
    int blank = 0, h0 = 0;
    for (int c = 0; c < n; c++) {
        key |= (uint64_t)start[c] << (4 * c);
        if (!start[c]) blank = c;
        h0 += md[start[c]][c];
    }
    *gen = 1; *exp = 0;
    if (key == goal_key) return 0;
    tmask = 2047; tab = calloc(tmask + 1, sizeof(slot_t)); count = 1;
    ecap = 1024; eused = 0; efree = -1; n_open = 0;
    ekey = malloc(sizeof(uint64_t) * ecap); enext = malloc(sizeof(int32_t) * ecap);
    frows = 0; head = tail = NULL; cur_f = cur_h = 1 << 30;
    slot_t *s = find(key);
    s->key = key; s->val = (uint64_t)NO_MOVE << 16 | (uint64_t)blank << 20;
    push(h0, h0, key);
    int cost = -1, f, h;
    while (pop(&f, &h, &key)) {
        int g = f - h;
        s = find(key);
        if ((int)(s->val & 0xffff) != g) continue;  /* stale */
        if (key == goal_key) { cost = g; break; }
        if (g + 1 > MAX_G) break;
        ++*exp;
        int last = (s->val >> 16) & 15;
        blank = (s->val >> 20) & 15;
        for (int m = 0; m < 4; m++) {
            if (m == 3 - last) continue;
            int t = nbr[blank][m];
            if (t < 0) continue;
            ++*gen;
            uint64_t tile = (key >> (4 * t)) & 15;
            int hc = h + md[tile][blank] - md[tile][t];
            uint64_t child = key - (tile << (4 * t)) + (tile << (4 * blank));
            slot_t *c = find(child);
            if (c->key) {
                if ((int)(c->val & 0xffff) <= g + 1) continue;
            } else {
                c->key = child;
                count++;
            }
            c->val = (uint64_t)(g + 1) | (uint64_t)m << 16 | (uint64_t)t << 20;
            push(g + 1 + hc, hc, child);
        }
        if (2 * count > (long long)tmask + 1) grow_table();
    }
    free(tab); free(ekey); free(enext); free(head); free(tail);
    return cost;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: c_astar SIZE GOAL_TILES... < boards\n"); return 2; }
    size = atoi(argv[1]);
    n = size * size;
    if ((size != 3 && size != 4) || argc != 2 + n) { fprintf(stderr, "c_astar: SIZE 3 or 4, then SIZE*SIZE goal tiles\n"); return 2; }
    int goal[16];
    for (int c = 0; c < n; c++) { goal[c] = atoi(argv[2 + c]); goal_key |= (uint64_t)goal[c] << (4 * c); }
    int hmax = 0;
    for (int c = 0; c < n; c++) {
        int t = goal[c], worst = 0;
        for (int k = 0; k < n; k++) {
            md[t][k] = t ? abs(c / size - k / size) + abs(c % size - k % size) : 0;
            if (md[t][k] > worst) worst = md[t][k];
        }
        hmax += worst;
    }
    hcols = hmax + 1;
    int dr[4] = {-1, 0, 0, 1}, dc[4] = {0, -1, 1, 0};
    for (int c = 0; c < n; c++)
        for (int m = 0; m < 4; m++) {
            int r = c / size + dr[m], k = c % size + dc[m];
            nbr[c][m] = (r >= 0 && r < size && k >= 0 && k < size) ? r * size + k : -1;
        }
    int cap = 1024, k = 0, *boards = malloc(sizeof(int) * cap * n);
    while (scanf("%d", &boards[k * n]) == 1) {
        for (int c = 1; c < n; c++) if (scanf("%d", &boards[k * n + c]) != 1) return 2;
        if (++k == cap) { cap *= 2; boards = realloc(boards, sizeof(int) * cap * n); }
    }
    int *costs = malloc(sizeof(int) * (k + 1));
    long long *gens = malloc(sizeof(long long) * (k + 1)), *exps = malloc(sizeof(long long) * (k + 1));
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    for (int i = 0; i < k; i++) costs[i] = astar(&boards[i * n], &gens[i], &exps[i]);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    long long total = 0;
    for (int i = 0; i < k; i++) { printf("%d %lld %lld\n", costs[i], gens[i], exps[i]); total += gens[i]; }
    double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
    printf("{\"boards\": %d, \"nodes_generated\": %lld, \"cpu_seconds\": %.6f}\n", k, total, s);
    return 0;
}
