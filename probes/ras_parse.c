/* ras_parse.c - amdgpu RAS sysfs text (formats and sources in ras_parse.h) */
#include "ras_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* "<key>: <decimal>" at the start of a line; 0 on success */
static int key_value(const char *line, size_t len, const char *key, int64_t *v)
{
    size_t k = strlen(key);
    if (len < k + 3 || memcmp(line, key, k) != 0 || line[k] != ':' || line[k + 1] != ' ')
        return -1;
    const char *p = line + k + 2, *end = line + len;
    if (p == end || *p < '0' || *p > '9')
        return -1;
    int64_t n = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        if (n > (INT64_MAX - (*p - '0')) / 10)
            return -1; /* more than an unsigned long the kernel could hold here */
        n = n * 10 + (*p - '0');
    }
    if (p != end)
        return -1;
    *v = n;
    return 0;
}

enum ras_count_rc ras_parse_count(const char *text, struct ras_count *out)
{
    out->ue = out->ce = out->de = -1;
    if (strncmp(text, "Query currently inaccessible", 28) == 0)
        return RAS_COUNT_INACCESSIBLE;
    /* the kernel's lines in its order: ue, ce, then an optional de */
    static const char *const keys[] = {"ue", "ce", "de"};
    int64_t *slots[] = {&out->ue, &out->ce, &out->de};
    const char *p = text;
    int n = 0;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len > 0) {
            if (n == 3 || key_value(p, len, keys[n], slots[n]))
                return RAS_COUNT_BAD;
            n++;
        }
        p += len + (nl != NULL);
    }
    if (n < 2) {
        out->ue = out->ce = out->de = -1;
        return RAS_COUNT_BAD;
    }
    return RAS_COUNT_OK;
}

/* "0x" followed by exactly 8 hex digits (%08x of a 32-bit value) */
static int hex8(const char *p)
{
    if (p[0] != '0' || p[1] != 'x')
        return -1;
    for (int i = 2; i < 10; i++)
        if (!strchr("0123456789abcdef", p[i]) || p[i] == '\0')
            return -1;
    return 0;
}

int ras_parse_bad_pages(const char *text, struct ras_pages *out)
{
    memset(out, 0, sizeof(*out));
    const char *p = text;
    int line = 0;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        line++;
        if (len > 0) {
            /* "0xAAAAAAAA : 0xSSSSSSSS : F" is 27 bytes */
            if (len != 27 || hex8(p) || memcmp(p + 10, " : ", 3) || hex8(p + 13) ||
                memcmp(p + 23, " : ", 3)) {
                out->bad_line = line;
                return -1;
            }
            switch (p[26]) {
            case 'R':
                out->reserved++;
                break;
            case 'P':
                out->pending++;
                break;
            case 'F':
                out->failed++;
                break;
            default:
                out->bad_line = line;
                return -1;
            }
        }
        p += len + (nl != NULL);
    }
    return 0;
}

int64_t ras_page_threshold(int64_t param, int64_t vram_bytes)
{
    if (param == 0)
        return 0;
    int64_t t = param < 0 ? vram_bytes / (100 * 1024 * 1024LL) : param;
    return t < RAS_EEPROM_MAX_RECORDS ? t : RAS_EEPROM_MAX_RECORDS;
}

enum ras_family ras_block_family(const char *block)
{
    if (strcmp(block, "umc") == 0)
        return RAS_MEMORY;
    if (strcmp(block, "xgmi_wafl") == 0 || strcmp(block, "pcie_bif") == 0)
        return RAS_LINK;
    return RAS_ENGINE;
}
