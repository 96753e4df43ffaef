/* embed.S - checks.yaml built into the binary, so that one file runs
 * anywhere; --checks FILE overrides it. */
    .section .rodata
    .global rvd_checks_yaml
    .global rvd_checks_yaml_end
rvd_checks_yaml:
    .incbin "checks.yaml"
rvd_checks_yaml_end:
    .byte 0
/* the torch probe's Python side (probes/probe_torch.c writes it to a
 * private temporary file and runs it under the user's interpreter) */
    .global rvd_torch_probe_py
    .global rvd_torch_probe_py_end
rvd_torch_probe_py:
    .incbin "probes/torch_probe.py"
rvd_torch_probe_py_end:
    .byte 0
    .section .note.GNU-stack,"",@progbits
