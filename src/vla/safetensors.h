/* safetensors.h - read (mmap, fully validated) and write safetensors files.
 * Format: 8-byte little-endian header length N, N bytes of JSON
 *   {"NAME": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
 *    "__metadata__": {"key": "value"}}
 * then the data buffer; offsets are relative to the buffer. Validation: the
 * header fits the file, is strict UTF-8 JSON, every dtype is F32/F16/BF16,
 * end - begin = elements x dtype size, tensors do not overlap and cover the
 * buffer exactly (as the reference implementation requires). */
#ifndef RVD_VLA_SAFETENSORS_H
#define RVD_VLA_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

enum st_dtype { ST_F32, ST_F16, ST_BF16 };

#define ST_MAX_DIMS 8

struct st_tensor {
    char *name;
    enum st_dtype dtype;
    int ndim;
    uint64_t shape[ST_MAX_DIMS];
    uint64_t begin, end; /* in the data buffer */
    uint64_t nelem;
};

struct st_file {
    char *path;
    void *map;
    size_t map_len;
    const unsigned char *data; /* the buffer after the header */
    uint64_t data_len;
    struct st_tensor *t;
    size_t n;
    char **meta_keys, **meta_vals; /* __metadata__ */
    size_t nmeta;
};

/* 0 or -1 (the message names the file and the tensor or field at fault) */
int st_open(struct st_file *f, const char *path);
/* parse an in-memory image (used by st_open and the unit tests) */
int st_parse(struct st_file *f, const char *what, const unsigned char *buf, size_t len);
void st_close(struct st_file *f);
const struct st_tensor *st_find(const struct st_file *f, const char *name);
const char *st_meta(const struct st_file *f, const char *key);
/* convert a tensor to fp32 */
void st_to_f32(const struct st_file *f, const struct st_tensor *t, float *out);

float st_bf16_to_f32(uint16_t h);
float st_f16_to_f32(uint16_t h);

/* writing: all tensors F32, in the order given */
struct st_wtensor {
    const char *name;
    int ndim;
    uint64_t shape[ST_MAX_DIMS];
    const float *data;
};
int st_write(const char *path, const struct st_wtensor *t, size_t n, const char *const *meta_kv,
             size_t nmeta);

#endif
