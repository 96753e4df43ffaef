/* test_tui_status.c - which check results colour which GPU value of the
 * dashboard (src/tui/tui_status.c): a per-GPU check colours only the GPUs it
 * did not pass on, a check naming gpu.N.x only GPU N, the worst status wins
 * (fail over warn), passes and skips colour nothing, and facts no panel
 * line shows colour no part. */
#include <stdlib.h>
#include <string.h>

#include "../../src/tui/tui_status.h"
#include "test.h"

static void set_check(struct check *ck, const char *id, int per_gpu, const char *reads)
{
    memset(ck, 0, sizeof(*ck));
    ck->id = (char *)id;
    ck->per_gpu = per_gpu;
    strlist_split(&ck->reads, reads, ",");
}

int main(void)
{
    enum { THERMAL, IDLE, SVM, RAS, AER, N };
    struct check ck[N];
    set_check(&ck[THERMAL], "gpu.thermal", 1, "gpu.temp_junction_c,gpu.temp_junction_limit_c");
    set_check(&ck[IDLE], "gpu.idle", 1, "gpu.busy_percent,gpu.users");
    set_check(&ck[SVM], "kernel.svm", 0, "kernel.svm_config,gpu.1.users");
    set_check(&ck[RAS], "gpu.ras", 1, "gpu.ras_ue");
    set_check(&ck[AER], "pcie.aer", 1, "gpu.pcie_replay_count,gpu.link.width");
    enum status gst[N][2] = {{ST_PASS, ST_FAIL}, /* thermal fails on GPU 1 only */
                             {ST_WARN, ST_WARN},
                             {ST__COUNT, ST__COUNT}, /* not per GPU */
                             {ST_FAIL, ST_FAIL},     /* no panel line shows RAS */
                             {ST_SKIP, ST_PASS}};
    const enum status st[N] = {ST_FAIL, ST_WARN, ST_WARN, ST_FAIL, ST_SKIP};
    struct result res[N];
    memset(res, 0, sizeof(res));
    for (int i = 0; i < N; i++) {
        res[i].check = &ck[i];
        res[i].st = st[i];
        res[i].gst = ck[i].per_gpu ? gst[i] : NULL;
        res[i].ngst = ck[i].per_gpu ? 2 : 0;
    }
    struct tui_model m;
    memset(&m, 0, sizeof(m));
    m.have_res = 1;
    m.res.v = res;
    m.res.n = N;

    enum status p[TP__COUNT];
    tui_status_parts(&m, 0, p);
    CHECK(p[TP_TEMP] == ST_PASS);  /* thermal passed on GPU 0 */
    CHECK(p[TP_POWER] == ST_WARN); /* busy: gpu.idle */
    CHECK(p[TP_USERS] == ST_WARN); /* gpu.idle; kernel.svm names GPU 1 only */
    CHECK(p[TP_PCIE] == ST_PASS);  /* pcie.aer skipped here */
    CHECK(p[TP_CLOCKS] == ST_PASS && p[TP_VRAM] == ST_PASS && p[TP_THROTTLE] == ST_PASS);
    tui_status_parts(&m, 1, p);
    CHECK(p[TP_TEMP] == ST_FAIL);
    CHECK(p[TP_USERS] == ST_WARN);
    CHECK(p[TP_PCIE] == ST_PASS);
    /* fail beats warn on one part: gpu.idle warns on users, svm fails */
    res[SVM].st = ST_FAIL;
    strlist_release(&ck[SVM].reads);
    set_check(&ck[SVM], "kernel.svm", 0, "gpu.1.users");
    tui_status_parts(&m, 1, p);
    CHECK(p[TP_USERS] == ST_FAIL);
    tui_status_parts(&m, 0, p);
    CHECK(p[TP_USERS] == ST_WARN);
    /* a GPU the per-GPU result did not judge: nothing coloured */
    tui_status_parts(&m, 5, p);
    CHECK(p[TP_TEMP] == ST_PASS && p[TP_POWER] == ST_PASS);
    /* no results yet */
    m.have_res = 0;
    tui_status_parts(&m, 1, p);
    CHECK(p[TP_TEMP] == ST_PASS);
    CHECK(tui_status_severity(ST_FAIL) > tui_status_severity(ST_ERROR) &&
          tui_status_severity(ST_ERROR) > tui_status_severity(ST_WARN) &&
          tui_status_severity(ST_PASS) == 0 && tui_status_severity(ST_SKIP) == 0);
    for (int i = 0; i < N; i++)
        strlist_release(&ck[i].reads);
    return test_report();
}
