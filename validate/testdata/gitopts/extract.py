#!/usr/bin/env python3
"""Extract git's parse-options tables (long/short names, whether a value is taken)
from a git source tree, per builtin command, by running the C preprocessor over each
builtin and reading the designated initialisers of every struct option array."""
import json, os, re, subprocess, sys

src = sys.argv[1]
gitc = open(os.path.join(src, "git.c")).read()
cmds = dict(re.findall(r'\{ "([a-z0-9-]+)", (cmd_[a-z_0-9]+)', gitc))
want = sys.argv[2].split(",") if len(sys.argv) > 2 else sorted(cmds)

def fn_file(fn):
    out = subprocess.run(["grep", "-l", "-E", r"^int %s\(" % fn, "-r", "builtin"], cwd=src, capture_output=True, text=True).stdout.split()
    return out[0] if out else None

def entries(block):
    # split the array body into top-level { ... } groups
    out, depth, start = [], 0, None
    i = 0
    while i < len(block):
        ch = block[i]
        if ch == '"':
            j = i + 1
            while block[j] != '"':
                j += 2 if block[j] == '\\' else 1
            i = j + 1
            continue
        if ch == "'":
            j = i + 1
            while block[j] != "'":
                j += 2 if block[j] == '\\' else 1
            i = j + 1
            continue
        if ch == '{':
            if depth == 0:
                start = i
            depth += 1
        elif ch == '}':
            depth -= 1
            if depth == 0:
                out.append(block[start:i + 1])
            if depth < 0:
                break
        i += 1
    return out

def field(e, name):
    m = re.search(r'\.%s = \(?("(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)\'|[^,}]+)\)?' % name, e)
    return m.group(1).strip() if m else None

def parse(path):
    pre = subprocess.run(["gcc", "-E", "-P", "-I.", path], cwd=src, capture_output=True, text=True).stdout
    opts = {}
    subs = []
    for m in re.finditer(r'struct option [a-z_0-9]+\[\] = \{', pre):
        body = pre[m.end():]
        # find the end of the array: matching brace
        depth, i = 1, 0
        while depth:
            c = body[i]
            if c == '{': depth += 1
            elif c == '}': depth -= 1
            elif c == '"':
                i += 1
                while body[i] != '"':
                    i += 2 if body[i] == '\\' else 1
            i += 1
        for e in entries(body[:i - 1]):
            t = field(e, "type")
            ln = field(e, "long_name")
            sn = field(e, "short_name")
            fl = field(e, "flags") or ""
            if t in (None, "OPTION_END", "OPTION_GROUP"):
                continue
            if t == "OPTION_SUBCOMMAND":
                subs.append(ln.strip('"'))
                continue
            if t == "OPTION_ALIAS":
                opts.setdefault("aliases", {})[ln.strip('"')] = field(e, "value").strip('"')
                continue
            if t in ("OPTION_STRING", "OPTION_FILENAME", "OPTION_INTEGER", "OPTION_UNSIGNED", "OPTION_CALLBACK", "OPTION_LOWLEVEL_CALLBACK"):
                kind = "value"
                if "PARSE_OPT_NOARG" in fl: kind = "flag"
                elif "PARSE_OPT_OPTARG" in fl: kind = "optional"
            elif t == "OPTION_NUMBER":
                continue
            else:
                kind = "flag"
            neg = "PARSE_OPT_NONEG" not in fl
            if ln and ln.startswith('"'):
                opts.setdefault("long", {})[ln.strip('"')] = [kind, neg]
            if sn and sn.startswith("'"):
                c = sn[1:-1]
                if c.startswith("\\"): c = c[1:]
                opts.setdefault("short", {})[c] = kind
                if ln and ln.startswith('"'):
                    opts.setdefault("pairs", {})[c] = ln.strip('"')
    # resolve aliases
    for a, s in opts.pop("aliases", {}).items():
        if s in opts.get("long", {}):
            opts["long"][a] = opts["long"][s]
    opts["subcommands"] = sorted(set(subs))
    return opts

EXTRA = {"apply": ["apply.c"], "am": ["apply.c"], "log": ["diff.c"], "show": ["diff.c"], "diff": ["diff.c"],
         "format-patch": ["diff.c"], "whatchanged": ["diff.c"], "diff-files": ["diff.c"], "diff-index": ["diff.c"], "diff-tree": ["diff.c"]}
res = {}
for w in want:
    fn = cmds.get(w)
    f = fn and fn_file(fn)
    if not f:
        print("no file for", w, file=sys.stderr)
        continue
    files = [f] + EXTRA.get(w, [])
    merged = {"long": {}, "short": {}, "subcommands": []}
    for x in files:
        o = parse(x)
        merged["long"].update(o.get("long", {}))
        merged["short"].update(o.get("short", {}))
        merged.setdefault("pairs", {}).update(o.get("pairs", {}))
        merged["subcommands"] += o["subcommands"]
    res[w] = merged
json.dump(res, sys.stdout, indent=1, sort_keys=True)
