/* test_vla_gaps.c - the fast-path gaps of a VLA pass (src/vla/gaps.c): the
 * joined list names each path not taken with its reason in VLA_GAPS order
 * and is "" when all were taken; a graph that was not captured is a gap
 * with its reason (or a stated one when the capture gave none), a captured
 * graph with a reason (replay differs) is one too; and docs/VLA.md's
 * fast-paths table lists exactly VLA_GAPS, in order, with the same text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/vla/gaps.h"
#include "test.h"

static void test_join(void)
{
    struct vla_gap_set gs;
    memset(&gs, 0, sizeof(gs));
    char out[2048];
    vla_gaps_join(&gs, out, sizeof(out));
    CHECK_STR(out, "");
    CHECK(vla_gaps_count(&gs) == 0);
    vla_gaps_set_graph(&gs, 1, "");
    CHECK(vla_gaps_count(&gs) == 0);
    snprintf(gs.why[VLA_GAP_lt_epilogues], sizeof(gs.why[0]), "no hipBLASLt: not found");
    snprintf(gs.why[VLA_GAP_flash_attention], sizeof(gs.why[0]), "needs mma.sync");
    vla_gaps_set_graph(&gs, 0, "hipStreamBeginCapture: hipErrorNotSupported");
    vla_gaps_join(&gs, out, sizeof(out));
    CHECK_STR(out, "flash_attention: needs mma.sync; lt_epilogues: no hipBLASLt: not found; "
                   "graph: hipStreamBeginCapture: hipErrorNotSupported");
    CHECK(vla_gaps_count(&gs) == 3);
    vla_gaps_set_graph(&gs, 0, NULL);
    CHECK_STR(gs.why[VLA_GAP_graph], "no graph was captured");
    vla_gaps_set_graph(&gs, 1, "the graph's actions differ from the stream pass's");
    CHECK_STR(gs.why[VLA_GAP_graph], "the graph's actions differ from the stream pass's");
    /* a short buffer is cut, never overrun */
    char small[20];
    vla_gaps_join(&gs, small, sizeof(small));
    CHECK(strlen(small) == sizeof(small) - 1);
}

static void test_doc_table(void)
{
    FILE *f = fopen("docs/VLA.md", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[1024];
    int in = 0, row = 0, seen_end = 0;
    while (fgets(line, sizeof(line), f)) {
        if (strstr(line, "<!-- fast-paths: begin")) {
            in = 1;
            continue;
        }
        if (strstr(line, "<!-- fast-paths: end")) {
            seen_end = in;
            break;
        }
        if (!in || strncmp(line, "| `", 3) != 0)
            continue;
        char want[1024];
        if (row < VLA_GAP_N)
            snprintf(want, sizeof(want), "| `%s` | %s |\n", vla_gap_table[row].key,
                     vla_gap_table[row].path);
        else
            snprintf(want, sizeof(want), "(no row %d in VLA_GAPS)", row);
        if (strcmp(line, want))
            fprintf(stderr, "docs/VLA.md fast-paths row %d:\n  is   %s  want %s\n", row, line,
                    want);
        CHECK_STR(line, want);
        row++;
    }
    fclose(f);
    CHECK(seen_end);
    CHECK(row == VLA_GAP_N);
}

int main(void)
{
    test_join();
    test_doc_table();
    return test_report();
}
