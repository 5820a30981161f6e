#!/usr/bin/env python3
"""The checks of tests-cluster/run.sh, each a subcommand; each exits 1 naming what differs.

    check.py shards COLLECTION COUNT          files per shard, by the rule docs/clusters.md states
    check.py snapshot SHARD OUT.json          the pages a killed attempt finished: id, inode, timings
    check.py resumed OUT.json SHARD MERGED    those pages were not read again
    check.py clean FOLDER...                  no temporary file, no page file unlisted, no page twice
    check.py same SINGLE MERGED               the two batches hold the same pages, rows and files
"""
import hashlib
import json
import os
import sqlite3
import sys


def fail(message):
    print("check: " + message)
    sys.exit(1)


def shard_of(relative_path, count):
    return int(hashlib.sha256(relative_path.encode()).hexdigest()[:16], 16) % count


def shard_files(collection, count):
    shards = [[] for _ in range(count)]
    for folder, _, names in os.walk(collection):
        for name in names:
            relative = os.path.relpath(os.path.join(folder, name), collection)
            shards[shard_of(relative, count)].append(os.path.join(collection, relative))
    return shards


def journal(folder):
    """The entries a run appended as its pages finished; a line cut by a kill is skipped."""
    entries = []
    try:
        with open(os.path.join(folder, "gloss.journal"), "rb") as f:
            for line in f.read().split(b"\n"):
                try:
                    entries.append(json.loads(line))
                except ValueError:
                    pass
    except FileNotFoundError:
        pass
    return entries


def manifest(folder):
    with open(os.path.join(folder, "gloss.json")) as f:
        return json.load(f)


def page_json(folder, entry):
    with open(os.path.join(folder, entry["outputs"]["json"])) as f:
        return json.load(f)


def snapshot(shard, out):
    pages = {}
    for entry in journal(shard):
        if entry["status"] != "ok":
            continue
        path = os.path.join(shard, entry["outputs"]["json"])
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        pages[entry["id"]] = {"inode": os.stat(path).st_ino, "timings": page_json(shard, entry)["timings"],
                              "sha256": digest, "source": entry["source"]}
    with open(out, "w") as f:
        json.dump(pages, f)
    print(len(pages))


def resumed(snapshot_file, shard, merged):
    """A page read again gets a new JSON file (written under a temporary name and renamed in: a
    new inode) and new timings (milliseconds to a tenth, per stage): either differing says the
    retry read the page twice."""
    with open(snapshot_file) as f:
        before = json.load(f)
    if not before:
        fail("the killed attempt had finished no page: nothing to resume")
    listed = {e["id"]: e for e in manifest(shard)["pages"]}
    database = sqlite3.connect("file:%s?mode=ro" % os.path.join(merged, "gloss.sqlite"), uri=True)
    for name, was in sorted(before.items()):
        entry = listed.get(name)
        if entry is None:
            fail("%s, finished before the kill, is not in %s/gloss.json" % (name, shard))
        path = os.path.join(shard, entry["outputs"]["json"])
        if os.stat(path).st_ino != was["inode"]:
            fail("%s was written again after the kill (its JSON file is a new file)" % name)
        with open(path, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != was["sha256"] or page_json(shard, entry)["timings"] != was["timings"]:
                fail("%s was read again after the kill (its JSON and timings changed)" % name)
        row = database.execute("SELECT timings FROM pages WHERE name = ?", (name,)).fetchone()
        if row is None or json.loads(row[0]) != was["timings"]:
            fail("%s in the merged database does not carry the timings of its one reading" % name)


def clean(folders):
    for folder in folders:
        data = manifest(folder)
        pages = data["pages"]
        keys = [(p["source"], p["pageIndex"]) for p in pages]
        if len(keys) != len(set(keys)):
            fail("%s lists a page twice" % folder)
        ids = [p["id"] for p in pages]
        if len(ids) != len(set(ids)):
            fail("%s lists a page id twice" % folder)
        listed = {path for p in pages for path in p["outputs"].values()}
        for name in os.listdir(os.path.join(folder, "pages")):
            if ".tmp-" in name:
                fail("%s/pages/%s is a half-written file left behind" % (folder, name))
        for name in os.listdir(folder):
            if ".tmp-" in name:
                fail("%s/%s is a half-written file left behind" % (folder, name))
        for path in listed:
            if not os.path.isfile(os.path.join(folder, path)):
                fail("%s lists %s, which is missing" % (folder, path))
        database = sqlite3.connect("file:%s?mode=ro" % os.path.join(folder, "gloss.sqlite"), uri=True)
        rows = database.execute("SELECT name FROM pages").fetchall()
        if sorted(r[0] for r in rows) != sorted(ids):
            fail("%s: its database and its gloss.json list different pages" % folder)
        if os.path.exists(os.path.join(folder, "gloss.journal")):
            fail("%s still has its journal: its last run did not finish" % folder)


# Each table's rows, keyed by page name and input path rather than row ids (which follow the
# order pages were written in), without the timings (how long a reading took, never the same).
QUERIES = {
    "inputs": "SELECT path, position, content_hash, settings_hash FROM inputs",
    "pages": "SELECT p.name, i.path, p.page_index, p.width, p.height, p.status, p.error, p.mean_confidence,"
             " p.outputs, p.title FROM pages p JOIN inputs i ON i.id = p.input_id",
    "page_texts": "SELECT p.name, t.text FROM page_texts t JOIN pages p ON p.id = t.page_id",
    "words": "SELECT p.name, w.position, w.line, w.text, w.start, w.x, w.y, w.width, w.height, w.confidence"
             " FROM words w JOIN pages p ON p.id = w.page_id",
    "faces": "SELECT p.name, f.position, f.x, f.y, f.width, f.height, f.confidence, f.neighbors, f.landmarks,"
             " f.has_smile FROM faces f JOIN pages p ON p.id = f.page_id",
    "regions": "SELECT p.name, r.position, r.kind, r.label, r.x, r.y, r.width, r.height, r.confidence"
               " FROM regions r JOIN pages p ON p.id = r.page_id",
    "batch": "SELECT key, value FROM batch",
}
SEARCHES = ["harbour", "ledger", "register", "folio", "the", "quay"]


def untimed(value):
    """A page's JSON without how long each step took (its timings, timeline and preparation
    timings), which no two readings share."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in ("timings", "timeline")}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def same(single, merged):
    one = sqlite3.connect("file:%s?mode=ro" % os.path.join(single, "gloss.sqlite"), uri=True)
    other = sqlite3.connect("file:%s?mode=ro" % os.path.join(merged, "gloss.sqlite"), uri=True)
    tables = {r[0] for r in one.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE '%VIRTUAL%'"
                                        " AND name NOT LIKE 'page_text_%'")}
    if tables - set(QUERIES):
        fail("the database has tables this check does not compare: %s" % sorted(tables - set(QUERIES)))
    counts = {}
    for table, query in QUERIES.items():
        a, b = sorted(one.execute(query).fetchall(), key=repr), sorted(other.execute(query).fetchall(), key=repr)
        if a != b:
            missing, extra = [r for r in a if r not in b], [r for r in b if r not in a]
            fail("table %s differs: %d rows of the single run not in the merge (first %r), %d the other way (first %r)"
                 % (table, len(missing), missing[:1], len(extra), extra[:1]))
        counts[table] = len(a)
    for term in SEARCHES:
        query = "SELECT p.name FROM page_text t JOIN pages p ON p.id = t.rowid WHERE page_text MATCH ? ORDER BY p.name"
        if one.execute(query, (term,)).fetchall() != other.execute(query, (term,)).fetchall():
            fail("searching %r finds other pages in the merge than in the single run" % term)
    # Page by page: the manifest's entries in order, and each page's JSON without its timings.
    a, b = manifest(single)["pages"], manifest(merged)["pages"]
    if a != b:
        fail("the manifests differ: %d pages in the single run, %d merged" % (len(a), len(b)))
    for entry in a:
        x, y = untimed(page_json(single, entry)), untimed(page_json(merged, entry))
        if x != y:
            fail("page %s differs between the single run and the merge" % entry["id"])
    files = lambda folder: sorted(os.listdir(os.path.join(folder, "pages")))
    if files(single) != files(merged):
        fail("the pages/ folders hold different files")
    # Each input's document, named and written as the single run has it.
    def documents(folder):
        root = os.path.join(folder, "documents")
        return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, names in os.walk(root) for f in names)
    one, both = documents(single), documents(merged)
    if not one:
        fail("the single run wrote no documents/")
    if one != both:
        fail("documents/ differs: %r in the single run only, %r in the merge only"
             % (sorted(set(one) - set(both))[:3], sorted(set(both) - set(one))[:3]))
    for name in one:
        with open(os.path.join(single, "documents", name), "rb") as one_file, \
                open(os.path.join(merged, "documents", name), "rb") as merged_file:
            if one_file.read() != merged_file.read():
                fail("documents/%s differs between the single run and the merge" % name)
    print("%d pages, %d documents, %s rows equal" % (len(a), len(one),
                                                    ", ".join("%d %s" % (n, t) for t, n in counts.items())))


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "shards":
        for index, files in enumerate(shard_files(args[0], int(args[1]))):
            print(index, len(files))
    elif command == "sources":
        for path in sorted(shard_files(args[0], int(args[1]))[int(args[2])]):
            print(path)
    elif command == "snapshot":
        snapshot(*args)
    elif command == "resumed":
        resumed(*args)
    elif command == "clean":
        clean(args)
    elif command == "same":
        same(*args)
    else:
        fail("no check named " + command)


if __name__ == "__main__":
    main()
