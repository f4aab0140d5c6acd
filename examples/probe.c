/* Probing retrobook's tables from C: the value of a position and the move to play.
 *
 *     scripts/install-lib "$HOME/.local"
 *     export PKG_CONFIG_PATH="$HOME/.local/lib/pkgconfig" LD_LIBRARY_PATH="$HOME/.local/lib"
 *     cc examples/probe.c $(pkg-config --cflags --libs retrobook) -o probe
 *     ./probe TABLES "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1"
 *
 * An engine written for Fathom needs none of this: it includes tbprobe.h instead of
 * Fathom's and links the same library. */
#include <retrobook.h>

#include <stdio.h>

static const char *outcome(int wdl) {
    return wdl == RB_WIN ? "win" : wdl == RB_LOSS ? "loss" : "draw";
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: probe TABLES FEN\n");
        return 2;
    }
    RbTablebase *tb = rb_open(argv[1]); /* folders separated by ':' */
    if (tb == NULL) {
        fprintf(stderr, "cannot open the tables in %s\n", argv[1]);
        return 1;
    }
    const char *fen = argv[2];

    /* In search: win, draw or loss (RB_FAILED outside the tables). */
    int wdl = rb_probe_wdl_fen(tb, fen);
    if (wdl == RB_FAILED) {
        fprintf(stderr, "no table answers for %s\n", fen);
        rb_close(tb);
        return 1;
    }
    /* Plies to mate (odd: the side to move mates), and to the next capture or pawn move. */
    int dtm = rb_probe_dtm_fen(tb, fen);
    int32_t dtz = 0;
    int class50 = rb_probe_dtz_fen(tb, fen, &dtz);
    printf("%s, mate in %d plies, zeroing in %d plies, class %d under the 50-move rule\n",
           outcome(wdl), dtm, dtz, class50);

    /* At the root: every move ranked for play from the FEN's halfmove clock. The first
       keeps a win the clock allows and mates fastest. */
    RbPlayMove moves[256];
    int n = rb_probe_root_clock_fen(tb, fen, false, moves, 256);
    for (int i = 0; i < n && i < 256; i++) {
        RbPlayMove m = moves[i];
        /* UCI: from, to, and the promotion (0 none, 1 knight .. 4 queen). */
        char uci[6] = {(char)('a' + m.from % 8), (char)('1' + m.from / 8),
                       (char)('a' + m.to % 8), (char)('1' + m.to / 8),
                       "\0nbrq"[m.promotion % 5], 0};
        printf("%s %s dtz %d dtm %d\n", uci, outcome(m.root_outcome), m.root_dtz, m.root_dtm);
    }
    rb_close(tb);
    return 0;
}
