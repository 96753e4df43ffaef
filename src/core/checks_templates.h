/* checks_templates.h - rule templates of checks.yaml (man 5 checks.yaml,
 * Templates): a top-level `templates:` of named rule lists with optional
 * parameters, used in a check's skip/fail/warn list by an item
 * `{use: NAME, with: {PARAM: VALUE}}`. */
#ifndef RVD_CHECKS_TEMPLATES_H
#define RVD_CHECKS_TEMPLATES_H

#include <yaml.h>

/* the most text and the most rules all uses of templates may expand to: a
 * small file must not grow into a large one (as YAML aliases would) */
#define TEMPLATES_MAX_BYTES (4u << 20)
#define TEMPLATES_MAX_RULES 65536

/* replace every use item of doc's checks by the template's rules, built as
 * new nodes of doc that carry the use item's position, so that the loader
 * parses and validates them like written rules. 0, or -1 after printing
 * "file:line:col: message": a malformed template or use, an unknown
 * template or parameter, a parameter missing or never used, a template
 * never used, a template that uses another, or an expansion past the
 * limits above. Runs after the duplicate-key check, before the parse. */
int templates_expand(yaml_document_t *doc, const char *file);

#endif
