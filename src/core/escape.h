/* escape.h - one escaping rule per output format. Strings that came from the
 * machine or a user's file (process names, paths, PCI ids, driver strings,
 * check ids) reach every output through the rule of that output's format;
 * no writer escapes on its own:
 *
 *   terminal text, dashboard  str_sanitize() (here)
 *   CSV cell                  csv_cell() / csv_write_cell() (here)
 *   JSON string               json_write_string() (json_out.h)
 *   HTML                      html_put() (src/report/html.h)
 *   markdown                  markdown_text() (src/report/report_doc.h)
 *   Prometheus label, HELP    prom_write_label_value(), prom_write_help()
 *                             (src/report/report_prom.h)
 *   XML (JUnit)               xml_write_escaped() (src/report/report.h)
 *   shell word (fix command)  shell_word() (here)
 *
 * The characters that are dangerous everywhere are those that move the
 * cursor, recolour, retitle or reorder what a terminal or editor shows: C0
 * controls and DEL, C1 controls (U+0080-U+009F; U+009B is a one-character
 * CSI, U+0085 a line break), the bidi embeddings, overrides, isolates and
 * marks (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069), and bytes that
 * are not UTF-8. A format that can keep the exact text (JSON, XML) writes
 * them as its escape (\u202e, &#x202E;); the others make them visible
 * (\x1b, \u202e, \xff). */
#ifndef RVD_CORE_ESCAPE_H
#define RVD_CORE_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

struct strbuf;

/* the UTF-8 sequence at s, well-formed (no overlong forms, no surrogates,
 * nothing above U+10FFFF): its length (0 at the NUL) and code point, *bad
 * 0. Otherwise *bad 1 and the length of the maximal ill-formed subpart
 * (Unicode's practice: one U+FFFD per subpart); *cp is then the first byte */
size_t utf8_next(const char *s, unsigned *cp, int *bad);
/* a code point from the dangerous set above */
int char_unsafe(unsigned cp);

/* Text on its way to a terminal (the text reports, the dashboard): the
 * dangerous characters and bytes that are not UTF-8 become visible escapes
 * (\x1b, \u202e, \xff). keep_newlines keeps '\n' and '\t' (multi-line
 * messages). Returns an allocated string. */
char *str_sanitize(const char *s, int keep_newlines);
/* the next character of s: its length (0 at the end), *unsafe 0 (show it),
 * 1 (a control or bidi character *cp) or 2 (a byte *cp that is not UTF-8,
 * length 1) */
size_t str_safe_next(const char *s, int *unsafe, unsigned *cp);

/* A text report written whole through str_sanitize (newlines and tabs
 * kept): text_safe_begin() gives a memory stream to print into, and
 * text_safe_end() writes what was printed to dest, made safe, and frees it.
 * For a report that prints many machine strings (bench: preset paths,
 * device and driver names) and no control sequence of its own. 0, or -1
 * when dest could not be written. */
struct text_safe {
    FILE *mem, *dest;
    char *buf;
    size_t len;
};
FILE *text_safe_begin(struct text_safe *t, FILE *dest);
int text_safe_end(struct text_safe *t);

void csv_write_cell(FILE *out, const char *s);

/* One shell word that means exactly s, for a fact's value inside a fix
 * command, in the POSIX form only (issue 30: bash's $'...' is other syntax
 * under dash, busybox sh and zsh): s itself when every byte is one of
 * [A-Za-z0-9_@%+=:,./-] (and s is neither empty nor starts with =), else
 * '...' (a quote inside as '\''). No value can end the word or start
 * another command. -1, and nothing appended, when s cannot be pasted as a
 * word (shell_word_refusal): the command is then left out. */
int shell_word(struct strbuf *sb, const char *s);
/* why s cannot stand in a pasted command, or NULL: a line break, a control
 * or invisible character (C0, DEL, C1, bidi, zero-width, separators, BOM),
 * bytes that are not UTF-8, a leading '-' that is not a number */
const char *shell_word_refusal(const char *s);

#endif
