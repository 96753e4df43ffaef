#!/usr/bin/env python3
"""layers.py - the folder graph from the built objects and the #include lines,
checked against the one declared order (tools/layers.order).

Why from the objects: an #include shows only what a file declares; a call
through an extern written by hand, or a table walked by name, shows up only as
an undefined symbol in the object. So every undefined symbol of an object is
mapped to the folder whose object defines it, and every "#include" to the
folder of the file it names; each pair of folders is an edge.

It fails (exit 1) when
  - the graph has a cycle (every strongly connected component of more than
    one folder is printed as one cycle path, each edge with what makes it),
  - an edge goes from a folder to one not below it in tools/layers.order,
  - an object or source lies in a folder the order does not list,
  - a line of the allowlist (tools/layers.allow) names an edge that no longer
    exists (the temporary exceptions cannot outlive their reason).
Edges the allowlist names are left out of both checks.

usage: layers.py [--edges] [--build DIR] [--src DIR] [--order FILE] [--allow FILE]
Exit: 0 the layers hold, 1 a violation, 2 bad usage or input."""
import os
import re
import signal
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def die(msg):
    sys.stderr.write("layers: %s\n" % msg)
    sys.exit(2)


def read_order(path):
    """folders bottom to top; a line may name extra objects (relative to the
    build directory) that belong to its folder"""
    order, extra = [], {}
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        die("%s: %s" % (path, e.strerror))
    for n, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if words[0] in order:
            die("%s:%d: %s listed twice" % (path, n, words[0]))
        order.append(words[0])
        for obj in words[1:]:
            extra[os.path.normpath(obj)] = words[0]
    if not order:
        die("%s: no folders" % path)
    return order, extra


def read_allow(path):
    allow = {}
    if not path or not os.path.exists(path):
        return allow
    for n, line in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
        body, _, why = line.partition("#")
        body = body.strip()
        if not body:
            continue
        m = re.fullmatch(r"(\S+)\s*->\s*(\S+)", body)
        if not m or not why.strip():
            die("%s:%d: expected 'FROM -> TO  # reason, owner'" % (path, n))
        allow[(m.group(1), m.group(2))] = ("%s:%d" % (path, n), why.strip())
    return allow


def folder_of(rel, extra):
    """the folder of a path relative to the source (or build) root"""
    rel = os.path.normpath(rel)
    if rel in extra:
        return extra[rel]
    parts = rel.split(os.sep)
    if parts[0] == "probes" and len(parts) == 2:
        return "probes"
    if parts[0] == "src" and len(parts) == 3:
        return parts[1]
    # the sources directly in src/ are the command line (main.c and the
    # helpers only it uses, such as explain_fix.c); src/embed.o is core's
    # by its line in layers.order
    if parts[0] == "src" and len(parts) == 2 and parts[1].endswith((".c", ".h", ".o")):
        return "main"
    return None


def objects(build, src, extra):
    """the objects of the sources that exist: an object left behind by a
    moved or removed file is not part of the program"""
    for top in ("src", "probes"):
        for d, _, files in os.walk(os.path.join(build, top)):
            for f in sorted(files):
                if not f.endswith(".o"):
                    continue
                rel = os.path.relpath(os.path.join(d, f), build)
                stem = os.path.join(src, rel[:-2])
                if rel in extra or any(os.path.exists(stem + e) for e in (".c", ".S")):
                    yield rel
    for f in sorted(os.listdir(build)):
        if f.endswith(".o"):
            yield f


def symbol_edges(build, src, extra, edges, unplaced):
    defined, refs = {}, []
    objs = list(objects(build, src, extra))
    if not objs:
        die("%s: no objects (build first)" % build)
    placed = []
    for rel in objs:
        folder = folder_of(rel, extra)
        if folder is None:
            unplaced.append(rel)
        else:
            placed.append((rel, folder))
    # one nm over every object (-A names the file on each line): a process per
    # object cost 27.5 s for 194 objects, one call 0.8 s (issue 31)
    folder_by_path = {os.path.join(build, rel): (rel, folder) for rel, folder in placed}
    syms = {path: [] for path in folder_by_path}
    if placed:
        try:
            out = subprocess.run(["nm", "-P", "-A"] + list(folder_by_path),
                                 capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            die("nm: %s" % e)
        for line in out.splitlines():
            path, sep, rest = line.partition(": ")
            if sep and path in syms:
                syms[path].append(rest.split())
    for path, (rel, folder) in folder_by_path.items():
        for w in syms[path]:
            if len(w) < 2:
                continue
            name, kind = w[0], w[1]
            if kind in ("U", "w", "v"):  # lowercase weak: undefined
                refs.append((folder, rel, name))
            elif kind.isupper():
                defined.setdefault(name, folder)
    for folder, rel, name in refs:
        to = defined.get(name)
        if to is not None and to != folder:
            edges.setdefault((folder, to), []).append("%s calls %s" % (rel, name))


def include_edges(src, extra, edges, unplaced):
    for top in ("src", "probes"):
        for d, _, files in os.walk(os.path.join(src, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, src)
                folder = folder_of(rel, extra)
                if folder is None:
                    unplaced.append(rel)
                    continue
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        # the compiler's order: the including file's folder, then -I.
                        for base in (d, src):
                            target = os.path.join(base, m.group(1))
                            if os.path.exists(target):
                                break
                        else:
                            continue
                        to = folder_of(os.path.relpath(target, src), extra)
                        if to is not None and to != folder:
                            edges.setdefault((folder, to), []).append(
                                "%s:%d includes %s" % (rel, n, m.group(1)))


def sccs(nodes, succ):
    """Tarjan's strongly connected components, iteratively"""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ.get(root, ())))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ.get(w, ()))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def cycle_in(comp, succ):
    """a shortest cycle through the component's first folder (breadth first)"""
    start, members = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    for v in queue:
        for w in sorted(succ.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [start]  # unreachable for a real component


def show(edge, why):
    more = " (+%d more)" % (len(why) - 3) if len(why) > 3 else ""
    return "  %s -> %s: %s%s" % (edge[0], edge[1], "; ".join(why[:3]), more)


def main(argv):
    if argv[:1] == ["--edges"]:  # every edge with its reasons, for a reader
        argv, list_edges = argv[1:], True
    else:
        list_edges = False
    opts = {"--build": "build", "--src": ".", "--order": "tools/layers.order",
            "--allow": "tools/layers.allow"}
    i = 0
    while i < len(argv):
        if argv[i] not in opts or i + 1 >= len(argv):
            die("usage: layers.py [--edges] [--build DIR] [--src DIR] [--order FILE] [--allow FILE]")
        opts[argv[i]] = argv[i + 1]
        i += 2
    order, extra = read_order(opts["--order"])
    allow = read_allow(opts["--allow"])
    rank = {f: n for n, f in enumerate(order)}
    edges, unplaced = {}, []
    symbol_edges(opts["--build"], opts["--src"], extra, edges, unplaced)
    include_edges(opts["--src"], extra, edges, unplaced)
    if list_edges:
        for e in sorted(edges):
            print(show(e, edges[e]))
    bad = 0
    for rel in unplaced:
        print("layers: %s lies in no folder of %s" % (rel, opts["--order"]))
        bad += 1
    folders = sorted({f for e in edges for f in e})
    for f in folders:
        if f not in rank:
            print("layers: folder %s is not in %s" % (f, opts["--order"]))
            bad += 1
    for e, (where, _) in sorted(allow.items()):
        if e not in edges:
            print("layers: %s: %s -> %s is allowed but no longer used: remove the line"
                  % (where, e[0], e[1]))
            bad += 1
    kept = {e: w for e, w in edges.items() if e not in allow}
    succ = {}
    for a, b in kept:
        succ.setdefault(a, set()).add(b)
    for comp in sccs(folders, succ):
        if len(comp) < 2:
            continue
        path = cycle_in(comp, succ)
        print("layers: cycle %s (component: %s)" % (" -> ".join(path), " ".join(comp)))
        for a, b in zip(path, path[1:]):
            print(show((a, b), kept[(a, b)]))
        bad += 1
    for e in sorted(kept):
        a, b = e
        if a in rank and b in rank and rank[b] > rank[a]:
            print("layers: %s uses %s, which is above it in %s" % (a, b, opts["--order"]))
            print(show(e, kept[e]))
            bad += 1
    if bad:
        print("layers: %d violation(s)" % bad)
        return 1
    print("layers: %d folders, %d edges, %d allowed for now: the order holds"
          % (len(folders), len(edges), len(allow)))
    for e, (where, why) in sorted(allow.items()):
        print("  allowed for now (%s): %s -> %s: %s" % (where, e[0], e[1], why))
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends it quietly
    sys.exit(main(sys.argv[1:]))
