/* Probes retrobook tables through the C ABI only.
 *
 * usage: probe TABLES < CASES
 * Each line of CASES: white black kings queens rooks bishops knights pawns ep stm wdl dtm fen
 * (bitboards in hex, stm 1 = white to move, expected wdl and dtm in the header's encoding),
 * as written by tests/capi.rs. Checks the bitboard and the FEN calls against the expected
 * values, then bad input, and exits non-zero on the first mismatch. */
#include "retrobook.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void expect(int got, int want, const char *what, const char *fen) {
    if (got != want) {
        fprintf(stderr, "%s: got %d, want %d for %s\n", what, got, want, fen);
        failures++;
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: probe TABLES < CASES\n");
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
    int wdl, dtm;
    while (fgets(line, sizeof line, stdin)) {
        int used = 0;
        if (sscanf(line,
                   "%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64
                   " %" SCNx64 " %" SCNx64 " %u %u %d %d %n",
                   &bb[0], &bb[1], &bb[2], &bb[3], &bb[4], &bb[5], &bb[6], &bb[7], &ep, &stm,
                   &wdl, &dtm, &used) < 12) {
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
            expect(moves[0].dtm, dtm, "rb_probe_root best move", fen);
        } else {
            expect(dtm == 0 || dtm == RB_NO_MATE, 1, "rb_probe_root without moves", fen);
        }
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
    expect(rb_largest(NULL), 0, "largest of NULL", "");
    expect(rb_open(NULL) == NULL, 1, "open NULL", "");
    expect(rb_open("/nonexistent/retrobook/tables") == NULL, 1, "open missing folder", "");
    rb_close(NULL);
    rb_close(tb);

    printf("cases %d failures %d\n", cases, failures);
    return failures == 0 ? 0 : 1;
}
