#!/usr/bin/env python3
"""Read every bench page with both of Gloss's readers and keep each page JSON whole.

  collect.py [--gloss BIN] [--data DIR] [--out DIR] [--jobs 2] [--group G ...] [--page S ...]

For each page of DATA/manifest.json and each reader (`--engine tesseract`, `--engine neural`),
runs `gloss ocr IMAGE --engine READER` with OMP_THREAD_LIMIT=1 and writes its stdout, the page
JSON, to OUT/READER/NAME.json (atomically), and the run's wall and user CPU seconds to
OUT/READER/NAME.run.json. A page already there is skipped; OUT/binary.json records the binary's
SHA-256, and a different binary refuses to mix into the same OUT.
"""
import concurrent.futures, itertools, json, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "ocr-quality"))
import score  # noqa: E402

READERS = ("tesseract", "neural")
DEFAULT_GLOSS = "/work/main/.build/gloss-snapshots/main-s16"
DEFAULT_OUT = os.path.join(ROOT, ".build", "reading-data")


def write_json(path, value):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(value, f)
    os.replace(path + ".tmp", path)


def read_one(binary, image, reader, out_dir, name):
    """Runs one reading; returns (name, reader, seconds, error or None)."""
    target = os.path.join(out_dir, reader, name + ".json")
    if os.path.exists(target):
        return name, reader, 0.0, None
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    start = time.monotonic()
    # /usr/bin/time gives this child's own user and system seconds on its last stderr line.
    proc = subprocess.run(["/usr/bin/time", "-f", "%U %S", binary, "ocr", image, "--engine", reader],
                          capture_output=True, env=env)
    wall = time.monotonic() - start
    err_lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    user = sys_ = None
    if err_lines:
        try:
            user, sys_ = (float(v) for v in err_lines[-1].split())
        except ValueError:
            pass
    if proc.returncode != 0:
        return name, reader, wall, "\n".join(err_lines[-5:])
    try:
        page = json.loads(proc.stdout)
    except ValueError as error:
        return name, reader, wall, f"not JSON: {error}"
    write_json(target, page)
    write_json(os.path.join(out_dir, reader, name + ".run.json"),
               {"wall": wall, "user": user, "sys": sys_, "load": os.getloadavg()[0]})
    return name, reader, wall, None


def main():
    ap = score.page_options(__doc__)
    ap.set_defaults(gloss=os.environ.get("GLOSS", DEFAULT_GLOSS))
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    pages = score.selected_pages(args)
    binary = os.path.abspath(args.gloss)
    sha = score.file_hash(binary)
    os.makedirs(args.out, exist_ok=True)
    stamp = os.path.join(args.out, "binary.json")
    if os.path.exists(stamp):
        with open(stamp, encoding="utf-8") as f:
            known = json.load(f)
        if known["sha256"] != sha:
            sys.exit(f"{args.out} holds readings of {known['binary']} ({known['sha256'][:12]}); "
                     f"{binary} is {sha[:12]}: use another --out")
    else:
        write_json(stamp, {"binary": binary, "sha256": sha})
    for reader in READERS:
        os.makedirs(os.path.join(args.out, reader), exist_ok=True)
    # Every group advances from its smallest file up, so that a partial run already holds
    # pages of each kind; the two readers of a page run together, under the same load.
    by_group = {}
    for p in sorted(pages, key=lambda p: os.path.getsize(os.path.join(args.data, p["image"]))):
        by_group.setdefault(p["group"], []).append(p)
    order = [p for round_ in itertools.zip_longest(*by_group.values()) for p in round_ if p]
    tasks = [(p, r) for p in order for r in READERS]
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(read_one, binary, os.path.join(args.data, p["image"]), r, args.out, p["name"])
                   for p, r in tasks]
        for future in concurrent.futures.as_completed(futures):
            name, reader, wall, error = future.result()
            if error:
                failed += 1
                print(f"{name} {reader}: FAILED: {error}", file=sys.stderr, flush=True)
            elif wall:
                print(f"{name} {reader}: {wall:.1f} s", flush=True)
    print(f"done: {len(tasks) - failed} of {len(tasks)} readings in {args.out} (binary {sha[:12]})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
