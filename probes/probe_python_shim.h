/* probe_python_shim.h - a pyenv shim resolved to the interpreter pyenv would
 * run, without running the shim (probes/probe_python_shim.c). */
#ifndef PROBE_PYTHON_SHIM_H
#define PROBE_PYTHON_SHIM_H

/* exe: the interpreter found on PATH. Returns the interpreter pyenv would
 * pick (malloc'd), with *why (malloc'd) saying what chose it, e.g.
 * "PYENV_VERSION=3.11.9" or "/src/app/.python-version: 3.11.9"; NULL when
 * exe is no pyenv shim (*why NULL) or cannot be resolved (*why says why:
 * the caller runs the shim itself). cwd: where .python-version is searched
 * from (PYENV_DIR, when set, wins). */
char *python_shim_resolve(const char *exe, const char *cwd, char **why);

#endif
