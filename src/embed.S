/* embed.S - checks.yaml built into the binary, so that one file runs
 * anywhere; --checks FILE overrides it. */
    .section .rodata
    .global rvd_checks_yaml
    .global rvd_checks_yaml_end
rvd_checks_yaml:
    .incbin "checks.yaml"
rvd_checks_yaml_end:
    .byte 0
    .section .note.GNU-stack,"",@progbits
