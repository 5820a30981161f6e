#!/usr/bin/env python3
"""Checks the structure PDF/A-2b asks of every searchable PDF Gloss writes, with pikepdf.

Debian 12 packages no PDF/A validator (veraPDF is not packaged; `apt-cache search pdfa` finds
only pdfarranger), so this checks what can be checked from the file's objects (docs/pdf.md says
what it does not check).

With --gloss it annotates fixtures that cover every kind of picture Gloss embeds (grey and RGB
PNG, 1-bit pages, a two-page TIFF, JPEGs as they are and turned by Exif, a CMYK JPEG, a PNG with
alpha, pages stating 96 ppi and none, a scanned PDF) with the default standard, checks every PDF
the batch wrote, and runs `qpdf --check` on each; then a batch of two with `--pdf-standard none`,
whose PDFs must have no PDF/A identification. Then broken copies of the first PDF are refused, so each
check is known to fail on a file that lacks what it checks. With --pdf it checks files.

The last line is "N passed, N failed". Run it with the interpreter of the virtual environment
`make setup` makes (.build/venv/bin/python3), which has pikepdf.
"""

import argparse
import datetime
import hashlib
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import pikepdf
    from pikepdf import Name
except ImportError:
    print("pikepdf is missing: run make setup and use .build/venv/bin/python3")
    print("0 passed, 1 failed")
    sys.exit(1)

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEBIAN_SRGB = pathlib.Path("/usr/share/color/icc/sRGB.icc")
COMPILED_SRGB = ROOT / "Sources/Reports/Profiles/sRGB.icc"
FIXTURES = [
    "text/two-pages.tif", "text/sans.png", "text/serif.png", "text/upright.jpg", "text/rotated.jpg",
    "scans/page.png", "odd/cmyk.jpg", "odd/grey-alpha.png", "odd/ppi-96.png", "odd/ppi-none.png",
]
# PDF inputs: their searchable PDF is the input with a text layer grafted on (GlossPDFGraft),
# made PDF/A-2b when the input can conform; the real scans of the graft tests.
GRAFTED = ["ocrmypdf/c02-22.pdf", "ocrmypdf/jbig2.pdf", "ocrmypdf/ccitt.pdf", "pdf/turned.pdf", "pdf/outline-annotation.pdf"]
NAMESPACES = {
    "x": "adobe:ns:meta/",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "pdfaid": "http://www.aiim.org/pdfa/ns/id/",
    "dc": "http://purl.org/dc/elements/1.1/",
    "pdf": "http://ns.adobe.com/pdf/1.3/",
    "xmp": "http://ns.adobe.com/xap/1.0/",
}
# The names of a forbidden thing, in any dictionary of the file (ISO 19005-2, 6.1.7 to 6.6).
# Soft masks PDF/A-2 would allow, with conditions; Gloss writes no transparency at all, and
# checks so.
FORBIDDEN_KEYS = {
    "/JS": "JavaScript", "/JavaScript": "JavaScript", "/AA": "additional actions", "/Encrypt": "encryption",
    "/SMask": "a soft mask (transparency)", "/OPI": "OPI", "/Alternates": "alternate images",
    "/PS": "PostScript", "/XFA": "XFA forms", "/NeedsRendering": "dynamic XFA",
}
FORBIDDEN_ACTIONS = {"/Launch", "/Sound", "/Movie", "/ResetForm", "/ImportData", "/JavaScript", "/Hide",
                     "/SetOCGState", "/Rendition", "/Trans", "/GoTo3DView"}


class Failures:
    def __init__(self, label):
        self.label = label
        self.found = []

    def __call__(self, condition, message):
        if not condition:
            self.found.append(f"{self.label}: {message}")
        return condition


def text(value):
    return str(value) if value is not None else None


def pdf_date(value):
    """A PDF date (D:YYYYMMDDHHmmSSOHH'mm') as (the UTC instant, or the local fields with no zone)."""
    match = re.fullmatch(r"(?:D:)?(\d{4})(\d\d)?(\d\d)?(\d\d)?(\d\d)?(\d\d)?(?:(Z)[\d']*|([+-])(\d\d)'?(\d\d)?'?)?",
                         value.strip())
    if not match:
        return ("unreadable", value)
    year, month, day, hour, minute, second, zulu, sign, zone_hours, zone_minutes = match.groups()
    fields = datetime.datetime(int(year), int(month or 1), int(day or 1), int(hour or 0), int(minute or 0), int(second or 0))
    if zulu or sign:
        offset = 0 if zulu else (1 if sign == "+" else -1) * (int(zone_hours) * 60 + int(zone_minutes or 0))
        return ("utc", fields - datetime.timedelta(minutes=offset))
    return ("local", fields)


def xmp_date(value):
    """An XMP date (ISO 8601, as precise as it is) in pdf_date's terms."""
    match = re.fullmatch(r"(\d{4})(?:-(\d\d)(?:-(\d\d)(?:T(\d\d):(\d\d)(?::(\d\d))?(Z|[+-]\d\d:\d\d)?)?)?)?",
                         value.strip())
    if not match:
        return ("unreadable", value)
    year, month, day, hour, minute, second, zone = match.groups()
    digits = year + (month or "") + (day or "") + (hour or "") + (minute or "") + (second or "")
    if zone:
        digits += "Z" if zone == "Z" else zone[0] + zone[1:3] + "'" + zone[4:6] + "'"
    return pdf_date(digits)


def check_metadata(pdf, fail):
    """The XMP stream names PDF/A-2b and says what the information dictionary says."""
    metadata = pdf.Root.get("/Metadata")
    if not fail(isinstance(metadata, pikepdf.Stream), "the catalog has no /Metadata stream"):
        return
    fail(metadata.get("/Type") == Name.Metadata and metadata.get("/Subtype") == Name.XML,
         "the metadata stream is not /Type /Metadata /Subtype /XML")
    fail("/Filter" not in metadata, "the metadata stream is compressed")
    raw = metadata.read_bytes()
    fail(raw.startswith('<?xpacket begin="\ufeff"'.encode()), "the XMP does not start with its packet header")
    fail(re.search(rb'<\?xpacket end="[rw]"\?>\s*$', raw) is not None, "the XMP has no packet trailer")
    fail(b' bytes=' not in raw and b' encoding=' not in raw, "the packet header has bytes= or encoding=")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        fail(False, "the XMP is not UTF-8")
        return
    import xml.etree.ElementTree as ElementTree
    try:
        tree = ElementTree.fromstring(raw)
    except ElementTree.ParseError as error:
        fail(False, f"the XMP is not well-formed XML: {error}")
        return

    def values(path):
        found = [element.text or "" for element in tree.iterfind(".//rdf:Description/" + path, NAMESPACES)]
        # Also as attributes of rdf:Description (the short form).
        prefix, local = path.split("/")[0].split(":")
        key = "{" + NAMESPACES[prefix] + "}" + local
        found += [element.get(key) for element in tree.iterfind(".//rdf:Description", NAMESPACES) if element.get(key)]
        return found

    fail(values("pdfaid:part") == ["2"], f"pdfaid:part is {values('pdfaid:part')}, not 2")
    fail(values("pdfaid:conformance") == ["B"], f"pdfaid:conformance is {values('pdfaid:conformance')}, not B")
    info = pdf.trailer.get("/Info")
    info = info if isinstance(info, pikepdf.Dictionary) else pikepdf.Dictionary()
    # ISO 19005-2, 6.6.2.3.1: each of these in the information dictionary has its XMP twin.
    pairs = [("/Title", "dc:title/rdf:Alt/rdf:li"), ("/Author", "dc:creator/rdf:Seq/rdf:li"),
             ("/Subject", "dc:description/rdf:Alt/rdf:li"), ("/Keywords", "pdf:Keywords"),
             ("/Creator", "xmp:CreatorTool"), ("/Producer", "pdf:Producer"),
             ("/CreationDate", "xmp:CreateDate"), ("/ModDate", "xmp:ModifyDate")]
    for key, path in pairs:
        if key not in info:
            continue
        if key.endswith("Date"):
            # Dates are compared as the same instant.
            found = values(path)
            if fail(len(found) == 1, f"{key} is in the information dictionary but {path} is not in the XMP"):
                fail(pdf_date(text(info[key])) == xmp_date(found[0]),
                     f"{key} {text(info[key])!r} is not the instant of {path} {found[0]!r}")
            continue
        fail(values(path) == [text(info[key])], f"{key} {text(info[key])!r} is {values(path)} in the XMP")


def check_output_intent(pdf, fail):
    """One sRGB OutputIntent for PDF/A, whose profile is Debian's sRGB.icc."""
    intents = pdf.Root.get("/OutputIntents")
    if not fail(isinstance(intents, pikepdf.Array) and len(intents) >= 1, "the catalog has no /OutputIntents"):
        return
    profiles = set()
    for intent in intents:
        fail(intent.get("/Type") in (None, Name.OutputIntent), "an OutputIntent is not /Type /OutputIntent")
        fail(intent.get("/S") == Name.GTS_PDFA1, f"an OutputIntent's /S is {intent.get('/S')}, not /GTS_PDFA1")
        fail("/OutputConditionIdentifier" in intent, "an OutputIntent has no /OutputConditionIdentifier")
        profile = intent.get("/DestOutputProfile")
        if fail(isinstance(profile, pikepdf.Stream), "an OutputIntent has no /DestOutputProfile stream"):
            data = profile.read_bytes()
            profiles.add(hashlib.sha256(data).hexdigest())
            fail(int(profile.get("/N", 0)) == 3, "the profile's /N is not 3 (RGB)")
            fail(len(data) > 128 and data[12:16] == b"mntr" and data[16:20] == b"RGB " and data[36:40] == b"acsp",
                 "the destination profile is not an RGB output-class ICC profile")
            fail(data[8] in (2, 4), f"the profile's ICC major version is {data[8]}")
            if DEBIAN_SRGB.exists():
                fail(data == DEBIAN_SRGB.read_bytes(), "the profile is not Debian's sRGB.icc")
    fail(len(profiles) <= 1, "OutputIntents name different profiles (ISO 19005-2, 6.2.3)")


def check_font(font, fail, where):
    """A font used on a page is in the file, its widths those of its glyphs."""
    subtype = font.get("/Subtype")
    if subtype == Name.Type3:
        procs = font.get("/CharProcs")
        widths = font.get("/Widths")
        if not fail(isinstance(procs, pikepdf.Dictionary) and isinstance(widths, pikepdf.Array),
                    f"{where}: Type 3 font without /CharProcs or /Widths"):
            return
        first, last = int(font.get("/FirstChar", 0)), int(font.get("/LastChar", -1))
        fail(len(widths) == last - first + 1, f"{where}: /Widths has {len(widths)} entries for codes {first}..{last}")
        names = {}
        encoding = font.get("/Encoding")
        if isinstance(encoding, pikepdf.Dictionary):
            code = 0
            for item in encoding.get("/Differences", []):
                if isinstance(item, int):
                    code = int(item)
                else:
                    names[code] = str(item)
                    code += 1
        matrix = [float(value) for value in font.get("/FontMatrix", [0.001, 0, 0, 0.001, 0, 0])]
        for code in range(first, last + 1):
            name = names.get(code)
            if not fail(name is not None and name in procs, f"{where}: code {code} has no glyph in /CharProcs"):
                continue
            # d0 or d1's first operand is the glyph's width in glyph space (9.6.5).
            operators = pikepdf.parse_content_stream(procs[name])
            declared = [operands for operands, operator in operators if str(operator) in ("d0", "d1")]
            if not fail(len(declared) == 1, f"{where}: glyph {name} has no d0 or d1"):
                continue
            glyph = float(declared[0][0]) * matrix[0] * 1000
            fail(abs(glyph - float(widths[code - first])) < 0.01,
                 f"{where}: glyph {name} is {glyph} wide, /Widths says {float(widths[code - first])}")
        fail("/ToUnicode" in font, f"{where}: Type 3 font without /ToUnicode (its text cannot be copied)")
        return
    descriptor = font.get("/FontDescriptor")
    if subtype == Name.Type0:
        descendants = font.get("/DescendantFonts", [])
        descriptor = descendants[0].get("/FontDescriptor") if len(descendants) else None
    embedded = isinstance(descriptor, pikepdf.Dictionary) and any(
        key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3"))
    fail(embedded, f"{where}: font {font.get('/BaseFont')} ({subtype}) is not embedded")


def check_colour(space, fail, where):
    """Device colours only as the sRGB intent allows: grey and RGB, not CMYK (6.2.4.3)."""
    if isinstance(space, pikepdf.Array) and len(space):
        if space[0] == Name.ICCBased:
            return
        for item in list(space)[1:]:
            if isinstance(item, Name):
                check_colour(item, fail, where)
        return
    fail(space != Name.DeviceCMYK, f"{where}: DeviceCMYK under an RGB OutputIntent")


def check_resources(resources, fail, where, seen):
    if not isinstance(resources, pikepdf.Dictionary):
        return
    for name, font in resources.get("/Font", {}).items():
        if font.objgen not in seen:
            seen.add(font.objgen)
            check_font(font, fail, f"{where} font {name}")
    for name, xobject in resources.get("/XObject", {}).items():
        if xobject.objgen in seen:
            continue
        seen.add(xobject.objgen)
        label = f"{where} XObject {name}"
        if xobject.get("/Subtype") == Name.Image:
            fail(not bool(xobject.get("/Interpolate", False)), f"{label}: /Interpolate true (6.2.8)")
            check_colour(xobject.get("/ColorSpace"), fail, label)
            bits = int(xobject.get("/BitsPerComponent", 8))
            fail(bits in (1, 2, 4, 8, 16), f"{label}: {bits} bits per component")
        elif xobject.get("/Subtype") == Name.Form:
            group = xobject.get("/Group")
            fail(not (isinstance(group, pikepdf.Dictionary) and group.get("/S") == Name.Transparency),
                 f"{label}: a transparency group")
            check_resources(xobject.get("/Resources"), fail, label, seen)
        else:
            fail(False, f"{label}: XObject of subtype {xobject.get('/Subtype')}")
    for name, state in resources.get("/ExtGState", {}).items():
        label = f"{where} ExtGState {name}"
        fail(state.get("/SMask", Name.None_) == Name.None_, f"{label}: a soft mask")
        fail(float(state.get("/CA", 1)) == 1 and float(state.get("/ca", 1)) == 1, f"{label}: constant alpha below 1")
        fail(state.get("/BM", Name.Normal) in (Name.Normal, Name.Compatible), f"{label}: blend mode {state.get('/BM')}")
        fail("/TR" not in state and state.get("/TR2", Name.Default) == Name.Default, f"{label}: a transfer function")
    for name, space in resources.get("/ColorSpace", {}).items():
        check_colour(space, fail, f"{where} colour space {name}")


def walk(value, fail, path, seen):
    """Every dictionary of the file: no key or action PDF/A-2b forbids."""
    if isinstance(value, (pikepdf.Dictionary, pikepdf.Stream)):
        if value.is_indirect:
            if value.objgen in seen:
                return
            seen.add(value.objgen)
        for key in value.keys():
            if key in FORBIDDEN_KEYS and not (key == "/SMask" and value.get(key) == Name.None_):
                fail(False, f"{path}{key}: {FORBIDDEN_KEYS[key]}")
            if key == "/S" and value.get(key) in FORBIDDEN_ACTIONS and value.get("/Type", Name.Action) == Name.Action:
                fail(False, f"{path}: a {value.get(key)} action (6.5.1)")
            if key == "/Filter":
                filters = value.get(key)
                filters = list(filters) if isinstance(filters, pikepdf.Array) else [filters]
                fail(Name.LZWDecode not in filters, f"{path}: LZW (6.1.7.2)")
            if key in ("/Parent", "/P"):
                continue
            walk(value.get(key), fail, f"{path}{key}", seen)
    elif isinstance(value, pikepdf.Array):
        for index, item in enumerate(value):
            walk(item, fail, f"{path}[{index}]", seen)


def check_pdfa(path):
    """Every failure of `path` against PDF/A-2b's structure, as lines."""
    fail = Failures(path.name)
    data = path.read_bytes()
    header = re.match(rb"%PDF-1\.[0-7]\r?\n%(....)", data)
    fail(header is not None and all(byte > 127 for byte in header.group(1)),
         "the header is not %PDF-1.n and a comment of four bytes above 127 (6.1.2)")
    fail(data.rstrip(b"\r\n").endswith(b"%%EOF"), "data after %%EOF (6.1.3)")
    try:
        pdf = pikepdf.open(path)
    except pikepdf.PdfError as error:
        return [f"{path.name}: pikepdf cannot open it: {error}"]
    with pdf:
        fail(not pdf.is_encrypted and "/Encrypt" not in pdf.trailer, "encrypted (6.1.3)")
        identifier = pdf.trailer.get("/ID")
        fail(isinstance(identifier, pikepdf.Array) and len(identifier) == 2 and all(len(bytes(item)) >= 16 for item in identifier),
             "the trailer has no /ID of two strings (6.1.3)")
        check_metadata(pdf, fail)
        check_output_intent(pdf, fail)
        names = pdf.Root.get("/Names")
        fail(not (isinstance(names, pikepdf.Dictionary) and "/JavaScript" in names), "document JavaScript")
        fail("/OpenAction" not in pdf.Root or pdf.Root.OpenAction.get("/S") != Name.JavaScript, "JavaScript on opening")
        fail("/AcroForm" not in pdf.Root or not pdf.Root.AcroForm.get("/NeedAppearances", False), "NeedAppearances")
        seen = set()
        for number, page in enumerate(pdf.pages, 1):
            where = f"page {number}"
            group = page.obj.get("/Group")
            fail(not (isinstance(group, pikepdf.Dictionary) and group.get("/S") == Name.Transparency),
                 f"{where}: a transparency group")
            for annotation in page.obj.get("/Annots", []):
                subtype = annotation.get("/Subtype")
                fail(subtype not in (Name.Movie, Name.Sound, Name.FileAttachment, Name.Screen, Name("/3D")),
                     f"{where}: a {subtype} annotation")
                if subtype != Name.Popup:
                    fail(int(annotation.get("/F", 0)) & 4 != 0, f"{where}: a {subtype} annotation without the Print flag (6.3.2)")
                if subtype not in (Name.Popup, Name.Link):
                    fail(isinstance(annotation.get("/AP"), pikepdf.Dictionary),
                         f"{where}: a {subtype} annotation without an appearance (6.3.3)")
            check_resources(page.obj.get("/Resources"), fail, where, seen)
            try:
                pikepdf.parse_content_stream(page)
            except pikepdf.PdfError as error:
                fail(False, f"{where}: its content does not parse: {error}")
        walk(pdf.trailer, fail, "trailer", set())
    return fail.found


def qpdf_check(path):
    run = subprocess.run(["qpdf", "--check", str(path)], capture_output=True, text=True)
    return [] if run.returncode == 0 else [f"{path.name}: qpdf --check exited {run.returncode}: {run.stdout[-400:]}{run.stderr[-400:]}"]


def annotate(gloss, output, extra, fixtures=FIXTURES, errors=None):
    # A fresh batch each time: one left by an earlier run would be resumed, its pages skipped
    # and its warnings not said again.
    shutil.rmtree(output, ignore_errors=True)
    inputs = [name if pathlib.Path(name).is_absolute() else str(ROOT / "fixtures" / name) for name in fixtures]
    run = subprocess.run([gloss, "annotate", *inputs, "-o", str(output), "--no-faces", "--format", "pdf",
                          "--quiet", "--jobs", "2", "--text", "fast", *extra], capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"gloss exited {run.returncode}: {run.stderr}")
    if errors is not None:
        errors.append(run.stderr)
    return sorted((output / "pages").glob("*.pdf"))


def layer_bytes(pdf):
    """The bytes of Gloss's text layer in a grafted PDF: every object its /GlossText form
    XObjects hold (the words' content, the font, its ToUnicode map), streams as stored and
    dictionaries as written out uncompressed, and 20 bytes an object for its framing."""
    seen, total = set(), 0

    def walk(value):
        nonlocal total
        if isinstance(value, (pikepdf.Dictionary, pikepdf.Array, pikepdf.Stream)) and value.is_indirect:
            if value.objgen in seen:
                return
            seen.add(value.objgen)
            total += 20 + (len(value.read_raw_bytes()) + len(value.stream_dict.unparse())
                           if isinstance(value, pikepdf.Stream) else len(value.unparse()))
        if isinstance(value, pikepdf.Stream):
            walk(value.stream_dict)
        elif isinstance(value, pikepdf.Dictionary):
            for item in value.values():
                walk(item)
        elif isinstance(value, pikepdf.Array):
            for item in value:
                walk(item)

    for page in pdf.pages:
        for name, form in page.obj.get("/Resources", pikepdf.Dictionary()).get("/XObject", pikepdf.Dictionary()).items():
            if str(name).startswith("/GlossText"):
                walk(form)
    return total


def claims_pdfa(path):
    with pikepdf.open(path) as pdf:
        return "/Metadata" in pdf.Root and b"pdfaid:part" in pdf.Root.Metadata.read_bytes()


def broken_copies(source, folder):
    """Copies of a good PDF/A file, each lacking one thing the checks look for, with a piece of
    the failure each must give."""
    def variant(name, change):
        with pikepdf.open(source) as pdf:
            change(pdf)
            target = folder / f"broken-{name}.pdf"
            pdf.save(target, static_id=True)
        return target

    def part_one(pdf):
        xmp = pdf.Root.Metadata.read_bytes().replace(b"<pdfaid:part>2<", b"<pdfaid:part>1<")
        pdf.Root.Metadata.write(xmp)

    def other_title(pdf):
        pdf.docinfo["/Title"] = "another title"

    def javascript(pdf):
        pdf.Root.OpenAction = pdf.make_indirect(pikepdf.Dictionary(S=Name.JavaScript, JS=pikepdf.String("app.alert(1)")))

    def transparency(pdf):
        pdf.pages[0].obj.Group = pikepdf.Dictionary(S=Name.Transparency, CS=Name.DeviceRGB)

    def cmyk(pdf):
        for _, image in pdf.pages[0].Resources.XObject.items():
            image.ColorSpace = Name.DeviceCMYK

    def unembedded_font(pdf):
        font = pdf.make_indirect(pikepdf.Dictionary(Type=Name.Font, Subtype=Name.Type1, BaseFont=Name.Helvetica))
        pdf.pages[0].Resources.Font.Helv = font

    def wrong_widths(pdf):
        for _, font in pdf.pages[0].Resources.Font.items():
            font.Widths = pikepdf.Array([600] * len(font.Widths))

    def no_intent(pdf):
        del pdf.Root["/OutputIntents"]

    def no_metadata(pdf):
        del pdf.Root["/Metadata"]

    cases = [(variant("part-one", part_one), "pdfaid:part is ['1']"),
             (variant("other-title", other_title), "/Title 'another title'"),
             (variant("javascript", javascript), "JavaScript on opening"),
             (variant("transparency", transparency), "a transparency group"),
             (variant("cmyk", cmyk), "DeviceCMYK"),
             (variant("unembedded-font", unembedded_font), "is not embedded"),
             (variant("wrong-widths", wrong_widths), "/Widths says 600"),
             (variant("no-intent", no_intent), "no /OutputIntents"),
             (variant("no-metadata", no_metadata), "no /Metadata")]
    with pikepdf.open(source) as pdf:
        target = folder / "broken-encrypted.pdf"
        pdf.save(target, encryption=pikepdf.Encryption(owner="owner", user="", R=6))
        cases.append((target, "encrypted"))
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gloss", help="the gloss binary: annotate the fixtures and check what it writes")
    parser.add_argument("--pdf", nargs="*", default=[], help="PDF files to check")
    parser.add_argument("--artifacts", help="a folder to keep the batches in (default: a temporary one)")
    arguments = parser.parse_args()
    passed, failed = 0, 0

    def report(label, problems):
        nonlocal passed, failed
        if problems:
            failed += 1
            print(f"FAIL {label}")
            for problem in problems[:20]:
                print("   ", problem)
        else:
            passed += 1
            print(f"ok   {label}")

    for name in arguments.pdf:
        path = pathlib.Path(name)
        report(f"PDF/A-2b structure of {path}", check_pdfa(path) + qpdf_check(path))

    if arguments.gloss:
        report("the compiled-in sRGB profile is Debian's icc-profiles-free sRGB.icc",
               [] if DEBIAN_SRGB.exists() and COMPILED_SRGB.read_bytes() == DEBIAN_SRGB.read_bytes()
               else [f"{COMPILED_SRGB} differs from {DEBIAN_SRGB} (or icc-profiles-free is not installed: make setup)"])
        with tempfile.TemporaryDirectory() as scratch:
            folder = pathlib.Path(arguments.artifacts or scratch).resolve()
            folder.mkdir(parents=True, exist_ok=True)
            written = annotate(arguments.gloss, folder / "pdfa", [])
            report(f"a PDF for each of the {len(FIXTURES)} fixtures", [] if len(written) == len(FIXTURES)
                   else [f"{len(written)} PDFs: {[path.name for path in written]}"])
            for path in written:
                report(f"PDF/A-2b structure and qpdf --check of {path.name}", check_pdfa(path) + qpdf_check(path))
            plain = annotate(arguments.gloss, folder / "plain", ["--pdf-standard", "none"], ["text/sans.png", "odd/cmyk.jpg"])
            problems = [] if len(plain) == 2 else [f"{len(plain)} PDFs for the 2 inputs"]
            for path in plain:
                with pikepdf.open(path) as pdf:
                    if "/Metadata" in pdf.Root or "/OutputIntents" in pdf.Root:
                        problems.append(f"{path.name} has PDF/A metadata or an OutputIntent")
                problems += qpdf_check(path)
            report(f"--pdf-standard none writes {len(plain)} plain PDFs, qpdf --check clean", problems)
            said = []
            grafted = annotate(arguments.gloss, folder / "grafted", ["--format", "pdf,json"], GRAFTED, said)
            documents = sorted((folder / "grafted" / "documents").rglob("*.pdf"))
            report(f"a grafted document for each of the {len(GRAFTED)} PDF inputs", [] if len(documents) == len(GRAFTED)
                   else [f"{len(documents)} documents: {[path.name for path in documents]}"])
            sizes = []
            for path in documents:
                source = ROOT / "fixtures" / next(name for name in GRAFTED if name.endswith("/" + path.name))
                with pikepdf.open(path) as pdf:
                    layer = layer_bytes(pdf)
                limit = int(source.stat().st_size * 1.05) + layer
                if path.stat().st_size > limit:
                    sizes.append(f"{path.name}: {path.stat().st_size} bytes, over {limit} (input {source.stat().st_size} "
                                 f"+ 5% + a layer of {layer})")
            report(f"each of the {len(documents)} grafted documents is at most its input + 5% + its text layer", sizes)
            for path in documents:
                if claims_pdfa(path):
                    report(f"PDF/A-2b structure and qpdf --check of the grafted {path.relative_to(folder)}",
                           check_pdfa(path) + qpdf_check(path))
                else:
                    # The reason is said once on stderr, and each of the document's pages carries it.
                    said_reason = re.search(re.escape(path.name) + r": not made PDF/A-2b: (.*)", said[0])
                    pages = [json.loads(page.read_text()) for page in (folder / "grafted" / "pages").glob("*.json")]
                    pages = [page for page in pages if pathlib.Path(page["source"]).name == path.name]
                    carried = {page.get("archiveRefusal") for page in pages}
                    report(f"the grafted {path.relative_to(folder)} is refused PDF/A, its reason said once and on each "
                           f"of its {len(pages)} page(s), qpdf --check clean",
                           qpdf_check(path) + ([] if said[0].count(f"{path.name}: not made PDF/A-2b: ") == 1
                                               else [f"no reason said once: {said[0]!r}"])
                           + ([] if said_reason and pages and carried == {said_reason.group(1)}
                              else [f"the pages' archiveRefusal {carried} is not the reason said"]))
            scripted = folder / "scripted.pdf"
            with pikepdf.open(ROOT / "fixtures" / GRAFTED[0]) as pdf:
                action = pdf.make_indirect(pikepdf.Dictionary(S=Name.JavaScript, JS=pikepdf.String("app.alert(1)")))
                pdf.Root.OpenAction = action
                pdf.save(scripted)
            errors = []
            annotate(arguments.gloss, folder / "refused", [], [str(scripted)], errors)
            refused = sorted((folder / "refused" / "documents").rglob("*.pdf"))
            report("an input with JavaScript is grafted without the PDF/A claim, the reason said once",
                   ([] if len(refused) == 1 and not claims_pdfa(refused[0]) else [f"documents: {refused}"])
                   + ([] if errors[0].count("not made PDF/A-2b: it has document actions") == 1 else [f"stderr: {errors[0]!r}"]))
            # Inputs a graft cannot make conform without changing them, each made from one it
            # can (OCRmyPDF's jbig2.pdf, its own PDF/A claim taken away): each is grafted without
            # the claim, its reason said once.
            def nonconforming(name, change, force_version=None):
                target = folder / f"nonconforming-{name}.pdf"
                with pikepdf.open(ROOT / "fixtures" / "ocrmypdf/jbig2.pdf") as pdf:
                    del pdf.Root["/Metadata"], pdf.Root["/OutputIntents"]
                    change(pdf)
                    pdf.save(target, force_version=force_version)
                return target

            def cmyk_image(pdf):
                for _, image in pdf.pages[0].Resources.XObject.items():
                    image.ColorSpace = Name.DeviceCMYK

            def annotation(**entries):
                def add(pdf):
                    pdf.pages[0].obj.Annots = pdf.make_indirect(pikepdf.Array([pdf.make_indirect(pikepdf.Dictionary(
                        Type=Name.Annot, Rect=pikepdf.Array([10, 10, 60, 30]), **entries))]))
                return add

            def cmyk_operator(pdf):
                pdf.pages[0].contents_add(pdf.make_stream(b"q 0 0 0 1 k 10 10 20 20 re f Q"), prepend=False)

            variants = {
                nonconforming("cmyk", cmyk_image): "it has DeviceCMYK colour",
                nonconforming("cmyk-operator", cmyk_operator): "it has DeviceCMYK colour",
                nonconforming("link-unprinted", annotation(Subtype=Name.Link)): "it has annotations that do not print",
                nonconforming("note-unshown", annotation(Subtype=Name.Text, F=4)): "it has annotations without an appearance",
                nonconforming("screen", annotation(Subtype=Name.Screen, F=4)): "it has Screen annotations",
                nonconforming("pdf-2", lambda pdf: None, "2.0"): "it is PDF 2.0",
            }
            errors = []
            annotate(arguments.gloss, folder / "nonconforming", [], [str(path) for path in variants], errors)
            problems = []
            for path, reason in variants.items():
                made = folder / "nonconforming" / "documents" / path.name
                if not made.exists() or claims_pdfa(made):
                    problems.append(f"{path.name}: {'claims PDF/A' if made.exists() else 'no document'}")
                if errors[0].count(f"{path.name}: not made PDF/A-2b: {reason}") != 1:
                    problems.append(f"{path.name}: {reason!r} not said once")
            report(f"the {len(variants)} inputs that cannot conform (CMYK images and operators, unprinted or unshown annotations, a Screen "
                   f"annotation, PDF 2.0) are grafted without the claim, each reason said once", problems + [
                       f"stderr: {errors[0]!r}"] if problems else [])
            described = folder / "described.pdf"
            information = {"/Title": "Linn, a test page", "/Author": "Jane Roe", "/Subject": "CCITT fax page",
                           "/Keywords": "fax; test", "/Creator": "tiff2pdf", "/CreationDate": "D:20160119123847+01'00'",
                           "/ModDate": "D:20170203040506Z", "/Archive-Shelf": "B-12"}
            with pikepdf.open(ROOT / "fixtures" / "ocrmypdf/ccitt.pdf") as pdf:
                for key, value in information.items():
                    pdf.docinfo[key] = pikepdf.String(value)
                pdf.save(described)
            annotate(arguments.gloss, folder / "described", [], [str(described)])
            kept = sorted((folder / "described" / "documents").rglob("*.pdf"))
            problems = [f"documents: {kept}"] if len(kept) != 1 or not claims_pdfa(kept[0]) else []
            if not problems:
                problems = check_pdfa(kept[0]) + qpdf_check(kept[0])
                with pikepdf.open(kept[0]) as pdf:
                    for key, value in information.items():
                        if text(pdf.docinfo.get(key)) != value:
                            problems.append(f"{key} is {text(pdf.docinfo.get(key))!r}, not the input's {value!r}")
            report("a grafted input's title, author, subject, keywords, creator, dates and own entries are kept, "
                   "in the XMP alike", problems)
            plain_grafted = annotate(arguments.gloss, folder / "plain-grafted", ["--pdf-standard", "none"], GRAFTED[:1])
            report("--pdf-standard none grafts without the PDF/A claim",
                   ([] if len(plain_grafted) == 1 else [f"{len(plain_grafted)} PDFs for the 1 input"])
                   + [f"{path.name} claims PDF/A" for path in plain_grafted if claims_pdfa(path)])
            if written:
                source = next(path for path in written if path.name.startswith("sans-"))
                broken = folder / "broken"
                broken.mkdir(exist_ok=True)
                for path, expected in broken_copies(source, broken):
                    found = check_pdfa(path)
                    report(f"{path.name} is refused", [] if any(expected in problem for problem in found)
                           else [f"no failure says {expected!r}: {found}"])
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
