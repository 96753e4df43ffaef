# shellcheck shell=sh
# tui_lib.sh - helpers of the dashboard's screen tests (tui_screen.sh,
# tui_gpus.sh), sourced after tests/lib.sh. Needs D (a scratch directory),
# D_ABS (the same, absolute) and RVD_ABS (the binary, absolute).

# has FILE REGEX: a line matches; lacks FILE REGEX: none does
has() {
    if grep -Eq -- "$2" "$1"; then
        ok
    else
        bad "$(basename "$1"): no line matches /$2/"
        sed 's/^/    /' "$1" | head -12
    fi
}
lacks() {
    if grep -Eq -- "$2" "$1"; then bad "$(basename "$1"): unexpected /$2/"; else ok; fi
}

# ---- tmux (call tmux_begin first) --------------------------------------------
tmux_begin() {
    SOCK="rvd-test-$$"
    trap 'T kill-server 2>/dev/null' EXIT
}
T() { tmux -L "$SOCK" -f /dev/null "$@"; }
# start NAME ROWS COLS ENV ARGS...: the dashboard in a detached session;
# its exit status lands in $D/NAME.rc
start() {
    s_name=$1
    s_rows=$2
    s_cols=$3
    s_env=$4
    shift 4
    T new-session -d -s "$s_name" -x "$s_cols" -y "$s_rows" \
        "env $s_env $RVD_ABS dashboard $*; echo \$? >$D_ABS/$s_name.rc; sleep 30"
}
cap() { T capture-pane -p -t "$1" >"$D/$2"; }
# wait_for NAME FILE REGEX...: capture until every REGEX shows in one
# capture (10 s at most). Under load (ASan, 2 cores) ncurses writes a frame
# in pieces and tmux may capture half of it: a caller that checks several
# lines of one frame names them all here, so the capture it checks is one
# where the whole frame had arrived.
wait_for() {
    w_name=$1
    w_file=$2
    shift 2
    i=0
    while [ $i -lt 100 ]; do
        cap "$w_name" "$w_file"
        w_all=1
        for w_re in "$@"; do
            grep -Eq -- "$w_re" "$D/$w_file" || { w_all=0; break; }
        done
        [ $w_all = 1 ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
# quit NAME: 'q', then the exit status must be 0
quit() {
    T send-keys -t "$1" q
    i=0
    while [ ! -s "$D/$1.rc" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    if [ "$(cat "$D/$1.rc" 2>/dev/null)" = 0 ]; then ok; else bad "$1: q: exit '$(cat "$D/$1.rc" 2>/dev/null)'"; fi
}
