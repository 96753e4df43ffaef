/* test_shell_roundtrip.c - shell_word() (src/core/escape.c) against the
 * shells a fix command is pasted into (issue 30). It generates the corpus:
 * every byte 0x01-0xff alone and inside a word, quotes, backslashes, $(...),
 * backquotes, globs, a leading - or =, bidi and invisible characters,
 * invalid UTF-8, and pseudo-random mixes of those pieces (a fixed seed).
 *
 *   test_shell_roundtrip              the C half: each string is refused, or
 *                                     its word is one line of the POSIX form
 *   test_shell_roundtrip emit SCRIPT WANT
 *                                     one command per accepted string, as
 *                                     "$STUB" WORD pre-WORD, and the argument
 *                                     vectors it must give (hex, one a line)
 *   test_shell_roundtrip argv ARG...  the stub: prints its arguments in hex
 *
 * tests/quoting.sh runs SCRIPT once under dash, bash, zsh and busybox sh
 * and compares with WANT. */
/* layers: core */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/escape.h"
#include "../../src/core/util.h"
#include "test.h"

#define CORPUS_MAX 4096

static char *corpus[CORPUS_MAX];
static size_t ncorpus;

static void add(const char *s)
{
    if (ncorpus < CORPUS_MAX && *s)
        corpus[ncorpus++] = xstrdup(s);
}

/* pieces the mixes are made of: shell syntax, quotes, controls, bidi,
 * invisible characters, bytes that are not UTF-8, plain text */
static const char *const pieces[] = {"'",
                                     "\"",
                                     "\\",
                                     "$(id)",
                                     "`id`",
                                     "${HOME}",
                                     "$x",
                                     "$'a'",
                                     "~",
                                     "*",
                                     "?",
                                     "[a]",
                                     "{a,b}",
                                     "!",
                                     "#",
                                     "&",
                                     "|",
                                     ";",
                                     "<",
                                     ">",
                                     " ",
                                     "\t",
                                     "\n",
                                     "-",
                                     "=",
                                     "%",
                                     "^",
                                     "(",
                                     ")",
                                     "\x1b[2J",
                                     "\x7f",
                                     "\xc2\x85",
                                     "\xe2\x80\xae",
                                     "\xe2\x81\xa6",
                                     "\xe2\x80\x8b",
                                     "\xef\xbb\xbf",
                                     "\xff",
                                     "\xc0\x80",
                                     "\xed\xa0\x80",
                                     "\xe2\x82",
                                     "caf\xc3\xa9",
                                     "\xe4\xb8\xad",
                                     "\xf0\x9f\x98\x80",
                                     "gfx1100",
                                     "6.8.0-45-generic",
                                     "/opt/rocm",
                                     "a",
                                     "Z9",
                                     ".",
                                     "/",
                                     ":",
                                     "@",
                                     ",",
                                     "+",
                                     "_",
                                     "'\\''",
                                     "\r",
                                     "$((1+1))",
                                     "<(id)",
                                     "\\n"};

static void corpus_make(void)
{
    char s[64];
    for (int b = 1; b < 256; b++) { /* every byte alone, and inside a word */
        snprintf(s, sizeof(s), "%c", b);
        add(s);
        snprintf(s, sizeof(s), "a%cb", b);
        add(s);
        snprintf(s, sizeof(s), "%c-x", b);
        add(s);
    }
    static const char *const fixed[] = {
        "6.2\t'; echo X #",
        "'; echo X #",
        "\"; echo X #",
        "-rf",
        "--help",
        "-5",
        "-1.5",
        "=ls",
        "=",
        "a=b",
        "x=$(id)",
        "--x=`id`",
        "'",
        "''",
        "\\'",
        "\\\\",
        "$",
        "${",
        "`",
        "a b c",
        "  ",
        "-",
        "--",
        "~root",
        "~/x",
        "*.so",
        "[!a]*",
        "#comment",
        "a#b",
        "\342\200\256cod.exe", /* U+202E in octal: c is no hex digit */
        "\xe2\x80\x8f",
        "\xd8\x9c",
        "\xe2\x80\xa8",
        "\xc2\xa0",
        "\xc2\xad",
        "\xf4\x90\x80\x80",
        "\xf8\x88\x80\x80\x80",
        "\xc1\xbf",
        "\xe0\x80\xaf",
        "/home/o'brien/venv/bin/python3",
        "linux-modules-extra-6.8.0-45-generic",
    };
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        add(fixed[i]);
    unsigned seed = 30;
    size_t np = sizeof(pieces) / sizeof(pieces[0]);
    for (int i = 0; i < 900; i++) {
        char m[256] = "";
        int k = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 6;
        for (int j = 0; j < k; j++) {
            seed = seed * 1103515245u + 12345u;
            strncat(m, pieces[(seed >> 16) % np], sizeof(m) - strlen(m) - 1);
        }
        add(m);
    }
}

/* the word is one line of the POSIX form: plain, or '...' with '\'' for a
 * quote, no control byte, no $' */
static int word_is_posix(const char *w)
{
    for (const unsigned char *p = (const unsigned char *)w; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 0;
    if (w[0] != '\'')
        return strspn(w,
                      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-") ==
                   strlen(w) &&
               w[0] != '=';
    size_t n = strlen(w);
    if (n < 2 || w[n - 1] != '\'')
        return 0;
    /* inside, a quote only as the four bytes '\'' */
    for (const char *p = w + 1; p < w + n - 1; p++)
        if (*p == '\'') {
            if (strncmp(p, "'\\''", 4) != 0)
                return 0;
            p += 3;
        }
    return 1;
}

static void hex(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        fprintf(f, "%02x", *p);
}

static int emit(const char *script, const char *want)
{
    FILE *sf = fopen(script, "w"), *wf = fopen(want, "w");
    if (!sf || !wf) {
        perror("test_shell_roundtrip: emit");
        return 2;
    }
    size_t left_out = 0;
    for (size_t i = 0; i < ncorpus; i++) {
        struct strbuf w = STRBUF_INIT;
        if (shell_word(&w, corpus[i]) < 0) {
            left_out++;
            continue;
        }
        fprintf(sf, "\"$STUB\" argv %s pre-%s\n", w.buf, w.buf);
        hex(wf, corpus[i]);
        fputs(" 7072652d", wf); /* "pre-" */
        hex(wf, corpus[i]);
        fputc('\n', wf);
        strbuf_release(&w);
    }
    fprintf(stderr, "%zu strings: %zu commands, %zu left out\n", ncorpus, ncorpus - left_out,
            left_out);
    return fclose(sf) | fclose(wf) ? 2 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "argv") == 0) {
        for (int i = 2; i < argc; i++) {
            if (i > 2)
                putchar(' ');
            hex(stdout, argv[i]);
        }
        putchar('\n');
        return 0;
    }
    corpus_make();
    if (argc == 4 && strcmp(argv[1], "emit") == 0)
        return emit(argv[2], argv[3]);
    CHECK(ncorpus >= 1000);
    size_t accepted = 0;
    for (size_t i = 0; i < ncorpus; i++) {
        struct strbuf w = STRBUF_INIT;
        int rc = shell_word(&w, corpus[i]);
        const char *why = shell_word_refusal(corpus[i]);
        CHECK((rc == 0) == (why == NULL));
        if (rc == 0) {
            accepted++;
            CHECK(word_is_posix(w.buf));
            if (!word_is_posix(w.buf))
                fprintf(stderr, "not POSIX: %s\n", w.buf);
        } else {
            CHECK(w.len == 0);
        }
        strbuf_release(&w);
    }
    /* both sides of the corpus are large: neither rule swallows the other */
    CHECK(accepted > 300 && ncorpus - accepted > 300);
    for (size_t i = 0; i < ncorpus; i++)
        free(corpus[i]);
    return test_report();
}
