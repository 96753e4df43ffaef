/* embed_models.S - the built-in VLA presets (every models/NAME.yaml), so that
 * `bench --preset NAME` works from the binary alone; a models/NAME.yaml next
 * to the binary or in --models DIR overrides the built-in copy. */
    .section .rodata
    .global rvd_model_tiny, rvd_model_tiny_end
    .global rvd_model_pi0, rvd_model_pi0_end
    .global rvd_model_lingbot_v1, rvd_model_lingbot_v1_end
    .global rvd_model_lingbot_v2, rvd_model_lingbot_v2_end
rvd_model_tiny:
    .incbin "models/tiny.yaml"
rvd_model_tiny_end:
    .byte 0
rvd_model_pi0:
    .incbin "models/pi0.yaml"
rvd_model_pi0_end:
    .byte 0
rvd_model_lingbot_v1:
    .incbin "models/lingbot-v1.yaml"
rvd_model_lingbot_v1_end:
    .byte 0
rvd_model_lingbot_v2:
    .incbin "models/lingbot-v2.yaml"
rvd_model_lingbot_v2_end:
    .byte 0
    .section .note.GNU-stack,"",@progbits
