#!/usr/bin/env python3
"""The nginx recipe of docs/pages.md, as written there, in a whole nginx.conf
that serves --root on 127.0.0.1:--port with its files under --work: the
recipe's one `nginx` block goes into `http`, its `root` replaced and a
`listen` put in, so that what `.ci/pages` checks is what the docs say.

Usage: nginx-conf.py --doc docs/pages.md --root DIR --port N --work DIR > nginx.conf
"""

import argparse
import pathlib
import re
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--doc", required=True, type=pathlib.Path)
    parser.add_argument("--root", required=True)
    parser.add_argument("--port", required=True, type=int)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    blocks = re.findall(r"^```nginx\n(.*?)^```$", args.doc.read_text(), re.S | re.M)
    if len(blocks) != 1:
        sys.exit(f"{args.doc}: {len(blocks)} nginx blocks, not one")
    recipe, roots = re.subn(r"^  root [^;]+;$", f"  listen 127.0.0.1:{args.port};\n  root {args.root};", blocks[0],
                            flags=re.M)
    if roots != 1:
        sys.exit(f"{args.doc}: the recipe has {roots} `root` lines, not one")
    print(f"""daemon off;
pid {args.work}/nginx.pid;
error_log {args.work}/nginx-error.log;
events {{}}
http {{
include /etc/nginx/mime.types;
access_log off;
client_body_temp_path {args.work}/tmp;
{recipe}}}""")


if __name__ == "__main__":
    main()
