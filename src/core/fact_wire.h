/* fact_wire.h - facts over a pipe, from an isolated probe child to the parent.
 *
 * One record per line: "<t>\t<name>\t<value>\t<source>\t<reason>\n" where <t>
 * is b, i, f, s, l (list; items separated by \x1f) or u (unknown). Tabs,
 * newlines, backslashes and \x1f inside fields are escaped (\t \n \\ \x).
 * A record is only accepted when its line is complete and well formed, so a
 * child that dies mid-write loses at most the record it was writing. */
#ifndef RVD_FACT_WIRE_H
#define RVD_FACT_WIRE_H

#include <stddef.h>

#include "fact.h"

/* encode one fact as one line onto sb */
void fact_wire_encode(struct strbuf *sb, const struct fact *f);
/* write facts fs->v[from..n) to fd; 0 or -errno */
int fact_wire_write(int fd, const struct factset *fs, size_t from);
/* parse complete, well-formed lines of buf into fs (replacing by name);
 * returns the number of records accepted */
int fact_wire_parse(struct factset *fs, const char *buf, size_t len);

#endif
