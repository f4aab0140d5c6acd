/* Probes xiangqi tables through the C ABI only.
 *
 * usage: xiangqi TABLES < CASES
 * Each line of CASES: wdl dtm by_rule fen (the values expected, in the header's encoding),
 * as written by tests/it/capi.rs. Then bad input must fail. Prints "cases N failures F" and
 * exits non-zero on any mismatch. */
#include "retrobook.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: xiangqi TABLES < CASES\n");
        return 2;
    }
    RbXiangqi *tb = rb_xiangqi_open(argv[1]);
    if (tb == NULL) {
        fprintf(stderr, "cannot open %s\n", argv[1]);
        return 1;
    }
    char line[512];
    int cases = 0, failures = 0;
    while (fgets(line, sizeof line, stdin)) {
        int wdl, dtm, by_rule, at = 0;
        if (sscanf(line, "%d %d %d %n", &wdl, &dtm, &by_rule, &at) != 3) {
            continue;
        }
        char *fen = line + at;
        fen[strcspn(fen, "\n")] = 0;
        RbXiangqiValue v;
        int got = rb_xiangqi_probe_fen(tb, fen, &v);
        if (got != wdl || v.wdl != wdl || v.dtm != dtm || v.by_rule != by_rule) {
            fprintf(stderr, "%s: got %d %d %d %d\n", fen, got, v.wdl, v.dtm, v.by_rule);
            failures++;
        }
        /* Without a place for the value, the same answer. */
        if (rb_xiangqi_probe_fen(tb, fen, NULL) != wdl) {
            failures++;
        }
        cases++;
    }
    /* Bad input fails, never crashes. */
    const char *bad[] = {"", "9/9/9 w", "4k4/9/9/9/9/9/9/9/4C4/3K1R3 w", "4k4/9/9/9/9/9/9/9/9/4K4 w"};
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (rb_xiangqi_probe_fen(tb, bad[i], NULL) != RB_FAILED) {
            fprintf(stderr, "no failure for %s\n", bad[i]);
            failures++;
        }
    }
    if (rb_xiangqi_probe_fen(NULL, "4k4/9/9/9/9/9/9/9/9/3K1R3 w", NULL) != RB_FAILED ||
        rb_xiangqi_probe_fen(tb, NULL, NULL) != RB_FAILED || rb_xiangqi_open("/nonexistent") != NULL) {
        failures++;
    }
    rb_xiangqi_close(tb);
    rb_xiangqi_close(NULL);
    printf("cases %d failures %d\n", cases, failures);
    return failures != 0;
}
