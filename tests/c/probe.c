/* Probes retrobook tables through the C ABI only.
 *
 * usage: probe TABLES BOOK PLAIN_BOOK < CASES
 * Each line of CASES: white black kings queens rooks bishops knights pawns ep stm wdl dtm
 * clock from to outcome dtz zeroing class fen (bitboards in hex, stm 1 = white to move,
 * expected wdl and dtm in the header's encoding; then a halfmove clock and the first move
 * rb_probe_root_clock must rank from it, with its outcome and dtz, from -1 when there is
 * none; then the position's distance to zeroing and its class from the clock, and its FEN
 * with that clock), as written by tests/it/capi.rs. Checks the bitboard and the FEN calls against the expected
 * values, then bad input; then probes BOOK (backed up by `book backup`) at the start position
 * by FEN and by bitboards and prints what it found, one line per move; PLAIN_BOOK (the same
 * book before the back-up) must have the same moves without values. Exits non-zero on any
 * mismatch. */
#include "retrobook.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

/* Resident pages of this process (Linux), or -1 where unknown. */
static long resident_pages(void) {
    long size = -1, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL) return -1;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
    fclose(f);
    return resident;
}

static void expect(int got, int want, const char *what, const char *fen) {
    if (got != want) {
        fprintf(stderr, "%s: got %d, want %d for %s\n", what, got, want, fen);
        failures++;
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: probe TABLES BOOK PLAIN_BOOK < CASES\n");
        return 2;
    }
    RbTablebase *tb = rb_open(argv[1]);
    if (tb == NULL) {
        fprintf(stderr, "cannot open %s\n", argv[1]);
        return 1;
    }
    printf("largest %u\n", rb_largest(tb));

    char line[512];
    int cases = 0;
    uint64_t bb[8];
    unsigned ep, stm;
    int wdl, dtm, clock, rfrom, rto, rout, rdtz, dtz, class50;
    while (fgets(line, sizeof line, stdin)) {
        int used = 0;
        if (sscanf(line,
                   "%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64
                   " %" SCNx64 " %" SCNx64 " %u %u %d %d %d %d %d %d %d %d %d %n",
                   &bb[0], &bb[1], &bb[2], &bb[3], &bb[4], &bb[5], &bb[6], &bb[7], &ep, &stm,
                   &wdl, &dtm, &clock, &rfrom, &rto, &rout, &rdtz, &dtz, &class50,
                   &used) < 19) {
            fprintf(stderr, "bad case line: %s", line);
            return 1;
        }
        char *fen = line + used;
        fen[strcspn(fen, "\n")] = 0;
        expect(rb_probe_wdl(tb, bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7], ep, 0,
                            stm == 1),
               wdl, "rb_probe_wdl", fen);
        expect(rb_probe_dtm(tb, bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7], ep, 0,
                            stm == 1),
               dtm, "rb_probe_dtm", fen);
        expect(rb_probe_wdl_fen(tb, fen), wdl, "rb_probe_wdl_fen", fen);
        expect(rb_probe_dtm_fen(tb, fen), dtm, "rb_probe_dtm_fen", fen);

        /* The best root move's value is the position's own value. */
        RbRootMove moves[256];
        int n = rb_probe_root(tb, bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7], ep, 0,
                              stm == 1, moves, 256);
        if (n == RB_FAILED) {
            expect(n, 0, "rb_probe_root", fen);
        } else if (n > 0) {
            expect(moves[0].root_dtm, dtm, "rb_probe_root best move", fen);
        } else {
            expect(dtm == 0 || dtm == RB_NO_MATE, 1, "rb_probe_root without moves", fen);
        }

        /* The root moves an engine may play: every one keeps the position's value, the first
           has it exactly, and they are the moves of rb_probe_root that do. */
        RbRootMove best[256];
        int nb = rb_probe_root_best(tb, bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7],
                                    ep, 0, stm == 1, best, 256);
        if (n != RB_FAILED) {
            int keep = 0;
            for (int i = 0; i < n && i < 256; i++) {
                keep += (moves[i].root_dtm == RB_NO_MATE) == (dtm == RB_NO_MATE) &&
                        (dtm == RB_NO_MATE || (moves[i].root_dtm & 1) == (dtm & 1));
            }
            expect(nb, keep, "rb_probe_root_best count", fen);
            if (nb > 0) {
                expect(best[0].root_dtm, dtm, "rb_probe_root_best first move", fen);
            }
            for (int i = 0; i < nb && i < 256; i++) {
                int same_sign = (best[i].root_dtm == RB_NO_MATE) == (dtm == RB_NO_MATE) &&
                                (dtm == RB_NO_MATE || (best[i].root_dtm & 1) == (dtm & 1));
                expect(same_sign, 1, "rb_probe_root_best keeps the value", fen);
            }
        }

        /* Ranked for play from the clock: the first move and its values as the Rust API
           ranks them, and the count of moves rb_probe_root gave. */
        RbPlayMove play[256];
        int np = rb_probe_root_clock(tb, bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7],
                                     ep, 0, stm == 1, (uint32_t)clock, false, play, 256);
        expect(np, n, "rb_probe_root_clock count", fen);
        if (np > 0) {
            expect(play[0].from, rfrom, "rb_probe_root_clock from", fen);
            expect(play[0].to, rto, "rb_probe_root_clock to", fen);
            expect(play[0].root_outcome, rout, "rb_probe_root_clock outcome", fen);
            expect(play[0].root_dtz, rdtz, "rb_probe_root_clock dtz", fen);
        } else {
            expect(rfrom, -1, "rb_probe_root_clock without moves", fen);
        }
        /* The same by FEN, whose halfmove clock is the count. */
        RbPlayMove by_fen[256];
        expect(rb_probe_root_clock_fen(tb, fen, false, by_fen, 256), np,
               "rb_probe_root_clock_fen count", fen);
        expect(np <= 0 || memcmp(&by_fen[0], &play[0], sizeof play[0]) == 0, 1,
               "rb_probe_root_clock_fen first move", fen);

        /* The position's distance to zeroing, and its class from the count. */
        int32_t d = 12345;
        expect(rb_probe_dtz(tb, bb[0], bb[1], bb[2], bb[3], bb[4], bb[5], bb[6], bb[7], ep, 0,
                            stm == 1, (uint32_t)clock, &d),
               class50, "rb_probe_dtz class", fen);
        expect(d, dtz, "rb_probe_dtz", fen);
        d = 12345;
        expect(rb_probe_dtz_fen(tb, fen, &d), class50, "rb_probe_dtz_fen class", fen);
        expect(d, dtz, "rb_probe_dtz_fen", fen);
        cases++;
    }

    /* Bad input returns the failure value. KQvK, white to move: Ka1 Qc1, black Kd3. */
    uint64_t wk = 1ull << 0, wq = 1ull << 2, bk = 1ull << 19;
    uint64_t w = wk | wq, b = bk, k = wk | bk;
    expect(rb_probe_wdl(tb, w, b, k, wq, 0, 0, 0, 0, 0, 0, true), RB_WIN, "valid KQvK", "");
    expect(rb_probe_wdl(NULL, w, b, k, wq, 0, 0, 0, 0, 0, 0, true), RB_FAILED, "null tb", "");
    expect(rb_probe_wdl(tb, w | b, b, k, wq, 0, 0, 0, 0, 0, 0, true), RB_FAILED,
           "overlapping colours", "");
    expect(rb_probe_wdl(tb, w, b, k, wq, wq, 0, 0, 0, 0, 0, true), RB_FAILED,
           "overlapping pieces", "");
    expect(rb_probe_wdl(tb, w, b, k, 0, 0, 0, 0, 0, 0, 0, true), RB_FAILED,
           "piece without a type", "");
    expect(rb_probe_dtm(tb, w, b, wk, wq, 0, 0, 0, 0, 0, 0, true), RB_FAILED, "no black king",
           "");
    expect(rb_probe_dtm(tb, w, b, k, wq, 0, 0, 0, 0, 0, 1, true), RB_FAILED, "castling", "");
    expect(rb_probe_dtm(tb, w, b, k, wq, 0, 0, 0, 0, 44, 0, true), RB_FAILED,
           "impossible en passant", "");
    expect(rb_probe_dtm(tb, w, b, k, wq, 0, 0, 0, 0, 99, 0, true), RB_FAILED,
           "en passant off the board", "");
    expect(rb_probe_dtm_fen(tb, NULL), RB_FAILED, "null FEN", "");
    expect(rb_probe_dtm_fen(tb, "not a fen"), RB_FAILED, "bad FEN", "");
    expect(rb_probe_wdl_fen(tb, "8/8/8/8/8/3k4/8/K1Q5 x - - 0 1"), RB_FAILED, "bad side", "");
    expect(rb_probe_wdl_fen(tb, "r3k3/8/8/8/8/8/8/4K3 b q - 0 1"), RB_FAILED, "castling FEN",
           "");
    expect(rb_probe_wdl_fen(tb, "8/8/8/8/8/3k4/8/KQQQQ3 w - - 0 1"), RB_FAILED, "no table",
           "");
    expect(rb_probe_root(tb, w, b, k, wq, 0, 0, 0, 0, 0, 0, true, NULL, 10), RB_FAILED,
           "null move array", "");
    expect(rb_probe_root(tb, w, b, k, wq, 0, 0, 0, 0, 0, 0, true, NULL, 0) > 0, 1,
           "count only", "");
    expect(rb_probe_root_clock(NULL, w, b, k, wq, 0, 0, 0, 0, 0, 0, true, 0, false, NULL, 0),
           RB_FAILED, "rb_probe_root_clock of NULL", "");
    expect(rb_probe_root_clock(tb, w, b, k, wq, 0, 0, 0, 0, 0, 1, true, 0, false, NULL, 0),
           RB_FAILED, "rb_probe_root_clock with castling", "");
    expect(rb_probe_root_clock_fen(tb, NULL, false, NULL, 0), RB_FAILED,
           "rb_probe_root_clock_fen of NULL", "");
    int32_t untouched = 7;
    expect(rb_probe_dtz(tb, w, b, k, wq, 0, 0, 0, 0, 0, 0, true, 0, NULL), RB_FAILED,
           "rb_probe_dtz into NULL", "");
    expect(rb_probe_dtz(tb, w, b, k, wq, 0, 0, 0, 0, 0, 1, true, 0, &untouched), RB_FAILED,
           "rb_probe_dtz with castling", "");
    expect(rb_probe_dtz_fen(tb, "not a fen", &untouched), RB_FAILED, "rb_probe_dtz_fen bad",
           "");
    expect(untouched, 7, "rb_probe_dtz leaves dtz on failure", "");
    expect(rb_largest(NULL), 0, "largest of NULL", "");
    expect(rb_open(NULL) == NULL, 1, "open NULL", "");
    expect(rb_open("/nonexistent/retrobook/tables") == NULL, 1, "open missing folder", "");
    expect(rb_open("") == NULL, 1, "open no folder", "");
    expect(rb_open(":") == NULL, 1, "open no folder", ":");
    /* Caches no machine here has are refused, the engine kept alive, nothing printed. */
    expect(rb_open_with_cache(argv[1], (size_t)1 << 40) == NULL, 1, "1 TiB cache", "");
    expect(rb_open_with_cache(argv[1], SIZE_MAX) == NULL, 1, "SIZE_MAX cache", "");
    /* A large cache that fits is taken from the system as it fills, not at once. */
    long before = resident_pages();
    RbTablebase *cached = rb_open_with_cache(argv[1], (size_t)2 << 30);
    expect(cached != NULL, 1, "2 GiB cache", "");
    long grown = resident_pages() - before;
    expect(before < 0 || grown * 4096L < (64L << 20), 1, "2 GiB cache taken lazily", "");
    expect(rb_probe_wdl_fen(cached, "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1"), RB_WIN, "cached", "");
    rb_close(cached);
    rb_close(NULL);
    rb_close(tb);

    /* The book: the start position by FEN and by bitboards (all castling rights). */
    RbBook *book = rb_book_open(argv[2]);
    expect(book != NULL, 1, "rb_book_open", argv[2]);
    RbBookMove by_fen[64], by_bb[64];
    int n_fen = rb_book_probe_fen(
        book, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", by_fen, 64);
    uint64_t white = 0xffffull, black = 0xffffull << 48;
    int n_bb = rb_book_probe(book, white, black, 0x1000000000000010ull,
                             0x0800000000000008ull, 0x8100000000000081ull,
                             0x2400000000000024ull, 0x4200000000000042ull,
                             0x00ff00000000ff00ull, 0, 15, true, by_bb, 64);
    expect(n_bb, n_fen, "rb_book_probe moves", "start");
    for (int i = 0; i < n_fen && i < 64 && i < n_bb; i++) {
        int same = by_fen[i].from == by_bb[i].from && by_fen[i].to == by_bb[i].to &&
                   by_fen[i].promotion == by_bb[i].promotion &&
                   by_fen[i].games == by_bb[i].games && by_fen[i].win == by_bb[i].win &&
                   by_fen[i].draw == by_bb[i].draw && by_fen[i].loss == by_bb[i].loss &&
                   by_fen[i].repetitions == by_bb[i].repetitions &&
                   by_fen[i].value == by_bb[i].value &&
                   by_fen[i].path_dependent == by_bb[i].path_dependent;
        expect(same, 1, "same move", "start");
    }
    if (n_fen > 0) {
        printf("book start %d %u %u %u %u %u %u\n", n_fen, by_fen[0].from, by_fen[0].to,
               by_fen[0].games, by_fen[0].win, by_fen[0].draw, by_fen[0].loss);
    }
    /* The back-up: every move valued, in per-mille, marked 0 or 1. */
    for (int i = 0; i < n_fen && i < 64; i++) {
        expect(by_fen[i].value >= 0 && by_fen[i].value <= 1000, 1, "backed-up value", "start");
        expect(by_fen[i].path_dependent <= 1, 1, "path-dependent flag", "start");
        printf("book move %u %u %u %u %d %u\n", by_fen[i].from, by_fen[i].to,
               by_fen[i].games, by_fen[i].repetitions, by_fen[i].value,
               by_fen[i].path_dependent);
    }
    /* The same book before the back-up: the same moves, no values. */
    RbBook *plain = rb_book_open(argv[3]);
    expect(plain != NULL, 1, "rb_book_open plain", argv[3]);
    RbBookMove unvalued[64];
    int n_plain = rb_book_probe_fen(
        plain, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", unvalued, 64);
    expect(n_plain, n_fen, "plain book moves", "start");
    for (int i = 0; i < n_plain && i < 64 && i < n_fen; i++) {
        expect(unvalued[i].value, -1, "no value before the back-up", "start");
        expect(unvalued[i].path_dependent, 0, "no mark before the back-up", "start");
        expect(unvalued[i].games == by_fen[i].games &&
                   unvalued[i].repetitions == by_fen[i].repetitions,
               1, "same counts before the back-up", "start");
    }
    rb_book_close(plain);
    expect(rb_book_probe_fen(NULL, "8/8/8/8/8/8/8/K1k5 w - - 0 1", by_fen, 64), RB_FAILED,
           "null book", "");
    expect(rb_book_probe_fen(book, "8/8/8/8/8/8/8/K1k5 w - - 0 1", NULL, 64), RB_FAILED,
           "null book moves", "");
    expect(rb_book_probe_fen(book, "8/8/8/8/8/8/8/K1k5 w - - 0 1", by_fen, 64), 0,
           "unknown position", "");
    expect(rb_book_probe(book, white, black, 0x1000000000000010ull, 0x0800000000000008ull,
                         0x8100000000000080ull, 0x2400000000000024ull, 0x4200000000000042ull,
                         0x00ff00000000ff00ull, 0, 2, true, by_bb, 64),
           RB_FAILED, "castling without its rook", "");
    expect(rb_book_open("/nonexistent/book.rbb") == NULL, 1, "open missing book", "");
    rb_book_close(NULL);
    rb_book_close(book);

    printf("cases %d failures %d\n", cases, failures);
    return failures == 0 ? 0 : 1;
}
