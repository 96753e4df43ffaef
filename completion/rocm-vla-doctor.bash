# bash completion for rocm-vla-doctor(1)                  -*- shell-script -*-
# Installed by `make install` (and the .deb) as
# $(PREFIX)/share/bash-completion/completions/rocm-vla-doctor, where
# bash-completion loads it on first use; or `source` it by hand.
# Self-contained (compgen and compopt only), so it also works without the
# bash-completion package. Check ids, built-in presets and options come from
# the tables in src/main.c, src/vla/bench.c, src/tui/tui_cmd.c and
# src/diff/diff_out.c, src/fleet/fleet_out.c, src/report/report_cmd.c,
# src/telemetry/monitor_cmd.c and src/soak/soak_cmd.c: tests/install.sh
# fails when one is missing here.

_rocm_vla_doctor_commands="check list explain collect bench dashboard diff fleet report monitor soak"

# the options each command takes (check is also the command when none is given)
_rocm_vla_doctor_opts() {
    case $1 in
    check) echo "--level --sysroot --json --junit --prom --html --markdown --no-redact --only
                 --strict --checks --requirements --python --preset --dtype --gpu
                 --memtest-fraction --verbose -v --no-color --help --version" ;;
    list) echo "--checks --facts --help --version" ;;
    explain) echo "--checks --help --version" ;;
    collect) echo "--output -o --requirements --python --help --version" ;;
    bench) echo "--preset --models --dtype --weights --save-weights --runs --seed --json
                 --image-size --batch --rows --backend --dry-run --force --sweep --grid --checks
                 --kernel-test --profile --html --verbose -v --help --version" ;;
    dashboard) echo "--interval --sysroot --checks --requirements --python --once --size
                     --workload --dtype --workload-interval --record --frames --history
                     --help --version" ;;
    diff) echo "--json --html --tolerance --allow-skip --no-color --verbose -v --help --version" ;;
    fleet) echo "--json --html --tolerance --no-color --help --version" ;;
    report) echo "--html --markdown --no-redact --checks --help --version" ;;
    monitor) echo "--sysroot --interval --count --json --csv --output -o --help --version" ;;
    soak) echo "--duration --preset --dtype --backend --json --sysroot --load --interval --help
                --version" ;;
    esac
}

# check ids and built-in presets, asked of the binary being completed
_rocm_vla_doctor_ids() {
    "$1" list 2>/dev/null | while read -r id _; do printf '%s\n' "$id"; done
}
_rocm_vla_doctor_presets() {
    "$1" bench --help 2>/dev/null |
        sed -n 's/.*Built-in presets: \(.*\)\. See.*/\1/p' | tr -d ',' | tr ' ' '\n'
}

_rocm_vla_doctor() {
    local bin=$1 cur prev cmd=""
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    # --opt=value: '=' is a word of its own in COMP_WORDS
    if [ "$cur" = "=" ]; then
        cur=""
    elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -ge 2 ]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi
    # the command is the first argument or none (then: check)
    if [ "$COMP_CWORD" -ge 2 ]; then
        case " $_rocm_vla_doctor_commands " in
        *" ${COMP_WORDS[1]} "*) cmd=${COMP_WORDS[1]} ;;
        *) cmd=check ;;
        esac
    fi
    [ -n "$bin" ] && command -v "$bin" >/dev/null 2>&1 || bin=rocm-vla-doctor

    COMPREPLY=()
    case $prev in
    --level)
        mapfile -t COMPREPLY < <(compgen -W "quick standard full" -- "$cur")
        return
        ;;
    --dtype)
        mapfile -t COMPREPLY < <(compgen -W "bf16 fp16 fp32" -- "$cur")
        return
        ;;
    --backend)
        mapfile -t COMPREPLY < <(compgen -W "auto cpu cuda hip" -- "$cur")
        return
        ;;
    --load)
        mapfile -t COMPREPLY < <(compgen -W "gemm none" -- "$cur")
        return
        ;;
    --only)
        # a comma-separated list: complete the last id
        local head="" last=$cur
        case $cur in *,*) head=${cur%,*}, last=${cur##*,} ;; esac
        mapfile -t COMPREPLY < <(compgen -P "$head" -W "$(_rocm_vla_doctor_ids "$bin")" -- "$last")
        return
        ;;
    --preset | --workload)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -W "$(_rocm_vla_doctor_presets "$bin")" -- "$cur"
            compgen -f -X '!*.yaml' -- "$cur"
            compgen -d -- "$cur")
        return
        ;;
    --sysroot)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -d -- "$cur"
            compgen -f -X '!*.tar.gz' -- "$cur")
        return
        ;;
    --models)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
        return
        ;;
    --python)
        mapfile -t COMPREPLY < <(compgen -c -- "$cur")
        return
        ;;
    --json | --junit | --prom | --html | --markdown | --record | --checks | --requirements | \
        --output | -o | \
        --weights | --save-weights)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
        ;;
    --interval | --runs | --seed | --image-size | --batch | --rows | --size | --workload-interval | --tolerance | \
        --gpu | --memtest-fraction | --grid | --count | --duration | --frames | --history)
        return # a number or NAME=PCT: nothing to offer
        ;;
    esac

    case $cur in
    -*)
        mapfile -t COMPREPLY < <(compgen -W "$(_rocm_vla_doctor_opts "${cmd:-check}")" -- "$cur")
        return
        ;;
    esac
    case $cmd in
    "")
        mapfile -t COMPREPLY < <(compgen -W "$_rocm_vla_doctor_commands" -- "$cur")
        ;;
    explain)
        mapfile -t COMPREPLY < <(compgen -W "$(_rocm_vla_doctor_ids "$bin")" -- "$cur")
        ;;
    diff | fleet | report)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -X '!*.json' -- "$cur"
            compgen -d -- "$cur")
        ;;
    esac
}
complete -F _rocm_vla_doctor rocm-vla-doctor
