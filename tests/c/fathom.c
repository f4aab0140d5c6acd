/* A program written against Fathom's API (tbprobe.h) alone, as an engine calls it: it
 * builds with Fathom's own tbprobe.c on Syzygy's files, or with retrobook's header and
 * library on retrobook's tables, and prints the same answers.
 *
 * usage: fathom TABLES < FENS       one line of answers per FEN
 *        fathom TABLES time < FENS  the time of tb_probe_root, every move's result filled
 *                                   in, over all the FENs (a benchmark)
 *
 * An answer line: tb_probe_wdl's result, then tb_probe_root's ("failed", "checkmate",
 * "stalemate", or the class, move and distance to zeroing), then after "|" every move's
 * result as from-to-promotes-ep:class:dtz, sorted; then after "|" tb_probe_root_dtz's
 * moves as from-to-promotes:rank:score, sorted, and after another tb_probe_root_wdl's
 * ("failed" where the call fails). Fields are numbers, -1 for TB_RESULT_FAILED. */
#define _POSIX_C_SOURCE 200809L
#include "tbprobe.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct position {
    uint64_t white, black, kings, queens, rooks, bishops, knights, pawns;
    unsigned rule50, castling, ep;
    bool turn;
};

/* Reads the board, side, castling, en-passant square and halfmove clock of a FEN. */
static int parse_fen(const char *fen, struct position *p) {
    memset(p, 0, sizeof *p);
    int rank = 7, file = 0;
    const char *s = fen;
    for (; *s && *s != ' '; s++) {
        if (*s == '/') {
            rank--;
            file = 0;
        } else if (*s >= '1' && *s <= '8') {
            file += *s - '0';
        } else {
            if (rank < 0 || file > 7) return 0;
            uint64_t bit = (uint64_t)1 << (rank * 8 + file++);
            if (*s >= 'a') p->black |= bit; else p->white |= bit;
            switch (*s | 0x20) {
            case 'k': p->kings |= bit; break;
            case 'q': p->queens |= bit; break;
            case 'r': p->rooks |= bit; break;
            case 'b': p->bishops |= bit; break;
            case 'n': p->knights |= bit; break;
            case 'p': p->pawns |= bit; break;
            default: return 0;
            }
        }
    }
    char side, castling[8], ep[4];
    unsigned clock = 0;
    if (sscanf(s, " %c %7s %3s %u", &side, castling, ep, &clock) < 3) return 0;
    p->turn = side == 'w';
    for (const char *c = castling; *c; c++) {
        if (*c == 'K') p->castling |= TB_CASTLING_K;
        if (*c == 'Q') p->castling |= TB_CASTLING_Q;
        if (*c == 'k') p->castling |= TB_CASTLING_k;
        if (*c == 'q') p->castling |= TB_CASTLING_q;
    }
    if (ep[0] != '-') p->ep = (unsigned)((ep[1] - '1') * 8 + (ep[0] - 'a'));
    p->rule50 = clock;
    return 1;
}

static unsigned root(const struct position *p, unsigned *results) {
    return tb_probe_root(p->white, p->black, p->kings, p->queens, p->rooks, p->bishops,
                         p->knights, p->pawns, p->rule50, p->castling, p->ep, p->turn,
                         results);
}

static int by_text(const void *a, const void *b) {
    return strcmp((const char *)a, (const char *)b);
}

/* Prints " |" and the n texts sorted (" | failed" for n < 0). */
static void print_sorted(char (*texts)[32], int n) {
    printf(" |");
    if (n < 0) {
        printf(" failed");
        return;
    }
    qsort(texts, (size_t)n, sizeof texts[0], by_text);
    for (int i = 0; i < n; i++) printf(" %s", texts[i]);
}

static void answer(const struct position *p) {
    unsigned wdl = tb_probe_wdl(p->white, p->black, p->kings, p->queens, p->rooks,
                                p->bishops, p->knights, p->pawns, 0, p->castling, p->ep,
                                p->turn);
    printf("%d ", wdl == TB_RESULT_FAILED ? -1 : (int)wdl);
    unsigned results[TB_MAX_MOVES];
    unsigned res = root(p, results);
    if (res == TB_RESULT_FAILED) {
        printf("failed\n");
        return;
    }
    if (res == TB_RESULT_CHECKMATE) printf("checkmate");
    else if (res == TB_RESULT_STALEMATE) printf("stalemate");
    else
        printf("%u %u-%u-%u-%u %u", TB_GET_WDL(res), TB_GET_FROM(res), TB_GET_TO(res),
               TB_GET_PROMOTES(res), TB_GET_EP(res), TB_GET_DTZ(res));
    static char moves[TB_MAX_MOVES][32];
    int n = 0;
    for (; results[n] != TB_RESULT_FAILED && n < TB_MAX_MOVES; n++) {
        unsigned r = results[n];
        snprintf(moves[n], sizeof moves[n], "%u-%u-%u-%u:%u:%u", TB_GET_FROM(r),
                 TB_GET_TO(r), TB_GET_PROMOTES(r), TB_GET_EP(r), TB_GET_WDL(r),
                 TB_GET_DTZ(r));
    }
    print_sorted(moves, n);
    /* The ranked root moves, by distance to zeroing and by class. */
    static struct TbRootMoves ranked;
    for (int by_class = 0; by_class < 2; by_class++) {
        int ok = by_class
            ? tb_probe_root_wdl(p->white, p->black, p->kings, p->queens, p->rooks,
                                p->bishops, p->knights, p->pawns, p->rule50, p->castling,
                                p->ep, p->turn, true, &ranked)
            : tb_probe_root_dtz(p->white, p->black, p->kings, p->queens, p->rooks,
                                p->bishops, p->knights, p->pawns, p->rule50, p->castling,
                                p->ep, p->turn, false, true, &ranked);
        if (!ok) ranked.size = 0;
        for (n = 0; n < (int)ranked.size; n++) {
            struct TbRootMove *m = &ranked.moves[n];
            snprintf(moves[n], sizeof moves[n], "%u-%u-%u:%d:%d", TB_MOVE_FROM(m->move),
                     TB_MOVE_TO(m->move), TB_MOVE_PROMOTES(m->move), m->tbRank,
                     m->tbScore);
        }
        print_sorted(moves, ok ? n : -1);
    }
    printf("\n");
}

int main(int argc, char **argv) {
    if (argc < 2 || (argc == 3 && strcmp(argv[2], "time") != 0) || argc > 3) {
        fprintf(stderr, "usage: fathom TABLES [time] < FENS\n");
        return 2;
    }
    if (!tb_init(argv[1])) {
        fprintf(stderr, "cannot open the tables in %s\n", argv[1]);
        return 1;
    }
    printf("largest %u\n", TB_LARGEST);
    static struct position all[100000];
    size_t n = 0;
    char line[256];
    while (n < sizeof all / sizeof all[0] && fgets(line, sizeof line, stdin)) {
        if (!parse_fen(line, &all[n])) {
            fprintf(stderr, "not a FEN: %s", line);
            return 1;
        }
        n++;
    }
    if (argc == 3) {
        unsigned results[TB_MAX_MOVES];
        unsigned failed = 0;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (size_t i = 0; i < n; i++) failed += root(&all[i], results) == TB_RESULT_FAILED;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
        printf("%zu positions, %u failed, %.1f us per tb_probe_root\n", n, failed,
               ns / 1e3 / (double)(n ? n : 1));
    } else {
        for (size_t i = 0; i < n; i++) answer(&all[i]);
    }
    tb_free();
    return 0;
}
