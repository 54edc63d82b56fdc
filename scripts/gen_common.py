"""What the code generators under scripts/ share: writing their checked-in
output, or checking it (`--check`, run by the build; `--stamp FILE` touches
FILE when the check passes, for the build's dependency tracking)."""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def generate(description, out_dir, outputs):
    """Write outputs ({file name: text}) under out_dir, or with --check exit
    non-zero naming the files that are not what the generator gives."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--check", action="store_true",
                    help="fail if the checked-in files are not what the generator gives")
    ap.add_argument("--stamp", help="touch this file when the check passes (for the build)")
    args = ap.parse_args()
    paths = {os.path.join(out_dir, name): text for name, text in outputs().items()}
    changed = [path for path, text in paths.items()
               if not os.path.exists(path) or open(path).read() != text]
    here = os.path.relpath(out_dir, ROOT)
    if args.check and changed:
        names = ", ".join(os.path.basename(path) for path in changed)
        sys.exit(f"{here}/ is stale ({names}): run {os.path.relpath(sys.argv[0], ROOT)}")
    if not args.check:
        os.makedirs(out_dir, exist_ok=True)
        for path in changed:
            with open(path, "w") as f:
                f.write(paths[path])
            print(f"wrote {os.path.relpath(path, ROOT)}")
    if args.stamp:
        with open(args.stamp, "w") as f:
            f.write("ok\n")
