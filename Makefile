# Gloss: set up a Debian 12 machine, build, test, benchmark, install.

PREFIX ?= /usr/local
SWIFT ?= swift
# Warnings are defects: the build fails on any.
STRICT = -Xswiftc -warnings-as-errors

# What Gloss links and reads at run time (zlib comes with libpng-dev; Poppler's glib API and
# Cairo draw PDF pages); then what the tests use (the Tesseract CLI for TSV comparisons, Chromium
# and Selenium for the browser tests, xmllint, poppler-utils to read the PDFs back), the fixture
# scripts (Pillow, DejaVu; qpdf encrypts a PDF fixture) and the benchmarks (GNU time, OpenCV's
# Python bindings as the reference detector; ocrmypdf, for bench/pdf.sh only, as the reference
# for searchable PDFs); python3-venv for the virtual environment holding iiif-prezi3, which
# checks the IIIF output, and pikepdf, which checks the PDF/A structure of the searchable PDFs;
# icc-profiles-free, whose sRGB.icc Gloss compiles in as PDF/A's OutputIntent (the test checks
# the copy in Sources/Reports/Profiles is still Debian's); libqpdf-dev grafts the text layer
# onto PDF inputs (Sources/CQPDF, Sources/PDFGraft); libmicrohttpd is the HTTP server of
# `gloss serve`, and wrk loads it in bench/serve.sh only; slurm-wlm and munge for the cluster
# test (make test-cluster runs slurmctld, slurmd and munged itself, on one node); mmdebstrap
# for the image test (make test-image builds the container's filesystem from Debian's
# packages, no registry needed); cmake builds upstream's YuNet C++, the face bench's reference
# (bench/faces/yunet-reference/build.sh).
APT_PACKAGES = \
	libmicrohttpd-dev wrk libtesseract-dev libleptonica-dev libpng-dev zlib1g-dev libturbojpeg0-dev libwebp-dev libpoppler-glib-dev libcairo2-dev libsqlite3-dev tesseract-ocr-eng tesseract-ocr-osd opencv-data pkg-config \
	tesseract-ocr chromium chromium-driver python3-selenium libxml2-utils poppler-utils \
	fonts-dejavu-core fonts-dejavu-extra python3-pil qpdf time python3-opencv python3-venv ocrmypdf icc-profiles-free \
	libqpdf-dev slurm-wlm munge mmdebstrap cmake

# The IIIF Presentation 3 model the IIIF test validates against, from PyPI, pinned (and what
# every package pulls in: bench/venv-constraints.txt).
VENV = .build/venv
IIIF_PREZI3 = iiif-prezi3==3.1.1
# Reads the searchable PDFs back for tests-pdf/check_pdfa.py (Debian 12 packages no PDF/A validator).
PIKEPDF = pikepdf==10.17.0
# The PP-OCRv6 models' conversion, goldens and benchmark (models/ppocr/README.md).
PPOCR_PYTHON = onnx==1.23.2 onnxruntime==1.32.0 numpy==2.4.6 rapidocr==3.10.0

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup build test test-cluster test-image screenshots test-sanitize bench bench-neural bench-faces face-data fuzz fixtures install uninstall clean

setup:
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(APT_PACKAGES)
	[ -x $(VENV)/bin/python3 ] || /usr/bin/python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q -c bench/venv-constraints.txt $(IIIF_PREZI3) $(PIKEPDF) $(PPOCR_PYTHON)

# The same flags as `test`'s build (`-enable-testing`), so that one does not rebuild every
# module after the other.
build:
	$(SWIFT) build -c release -Xswiftc -enable-testing $(STRICT)

# Tests run against the optimised library: the face detector scans millions of windows, which
# unoptimised code does a hundred times slower. The test targets themselves are compiled
# without the optimiser (Package.swift's testSettings says why and what it saves).
BIN = $(shell $(SWIFT) build -c release --show-bin-path)

# Suites that assert wall-clock bounds (timeouts, a page read within its time) run apart, after
# the rest, one test at a time: the other suites' CPU-bound tests, run in parallel, can hold
# both of the two cooperative threads for a minute and push a timer past its bound.
TIMED_SUITES = $(shell cat Tests/timed-suites)

# Under `make test` a browser test whose tools `make setup` installs fails when one is missing,
# rather than skipping (run alone, it skips and says why).
test: export GLOSS_REQUIRE_TOOLS := 1
test:
	$(SWIFT) build -c release --build-tests -Xswiftc -enable-testing $(STRICT)
	$(SWIFT) test -c release --skip-build --skip '$(TIMED_SUITES)'
	$(SWIFT) test -c release --skip-build --no-parallel --filter '$(TIMED_SUITES)'
	/usr/bin/python3 tests-browser/test_viewer.py --gloss "$(BIN)/gloss" --artifacts .build/browser-test
	/usr/bin/python3 tests-browser/test_index_view.py --gloss "$(BIN)/gloss" --artifacts .build/browser-test
	/usr/bin/python3 tests-browser/test_page_review.py --gloss "$(BIN)/gloss" --artifacts .build/browser-test
	/usr/bin/python3 tests-browser/test_preparation_panel.py --gloss "$(BIN)/gloss" --artifacts .build/browser-test
	/usr/bin/python3 tests-browser/test_proofreading.py --gloss "$(BIN)/gloss" --artifacts .build/browser-test
	/usr/bin/python3 tests-browser/search_conformance.py
	$(VENV)/bin/python3 tests-iiif/validate.py --gloss "$(BIN)/gloss" --artifacts .build/iiif-test
	$(VENV)/bin/python3 tests-pdf/check_pdfa.py --gloss "$(BIN)/gloss" --artifacts .build/pdf-test
	$(VENV)/bin/python3 tests-iiif/test_serve.py --gloss "$(BIN)/gloss" --artifacts .build/serve-test

# Shards on a real Slurm cluster of one node (tests-cluster/run.sh): about 2 minutes on two
# cores. It uses the gloss that make test built (the same build command, so nothing is
# compiled again after it), or the one GLOSS names.
test-cluster:
	$(if $(GLOSS),,$(SWIFT) build -c release --build-tests -Xswiftc -enable-testing $(STRICT))
	$(SUDO) env GLOSS="$(or $(GLOSS),$(BIN)/gloss)" tests-cluster/run.sh   # slurmctld and munged run as root

# The Containerfile's runtime filesystem built with mmdebstrap from Debian's packages into
# .build/image-root, and gloss run inside it with chroot (tests-image/run.sh). Not in CI: the
# packages' download and unpacking took 5m37s here, past what CI has to spare.
test-image:
	$(if $(GLOSS),,$(SWIFT) build -c release -Xswiftc -enable-testing $(STRICT))
	GLOSS="$(or $(GLOSS),$(BIN)/gloss)" tests-image/run.sh

# The README's pictures of a page (docs/screenshots/page-desktop.png and page-phone.png), and
# docs/proofreading.md's (proofreading.png).
screenshots: build
	/usr/bin/python3 tests-browser/test_page_review.py --gloss "$(BIN)/gloss" --artifacts .build/browser-test --screenshots docs/screenshots
	/usr/bin/python3 tests-browser/test_proofreading.py --gloss "$(BIN)/gloss" --artifacts .build/browser-test --screenshots docs/screenshots

# The suite under ThreadSanitizer and AddressSanitizer, then a leak check of Gloss's own C
# handles (sanitize/run.sh; see sanitize/README.md). Each sanitizer builds in a scratch path of
# its own, $(SAN_SCRATCH)/san-thread and san-address, never in .build; SANITIZERS picks the passes.
SAN_SCRATCH ?= /tmp
SANITIZERS ?= thread address leaks

test-sanitize:
	SWIFT="$(SWIFT)" SAN_SCRATCH="$(SAN_SCRATCH)" sanitize/run.sh $(SANITIZERS)

bench: build
	$(SWIFT) build -c release --product IndexBench
	"$(BIN)/IndexBench"
	bench/ocr.sh
	bench/pipeline.sh
	bench/memory.sh
	bench/pdf.sh
	bench/images.sh
	bench/ocr-quality.sh
	bench/serve.sh
	/usr/bin/python3 bench/serve_corrections.py --gloss "$(BIN)/gloss"

# The cascade against OpenCV; then YuNet against upstream's C++ (when built: YUNET_REFERENCE_BUILD)
# and OpenCV's Haar, and its F1 on annotated photos (FACE_DATA, see bench/faces/README.md); the
# shapes of its boxes on those photos and on document pages (OCR_DATA's too, when made); recall
# on faces under 20 px and over, with and without a second, larger look; the product's faces
# (`gloss annotate --no-text`, `gloss faces`) against YuNetBench's on the same photos, and on the
# document pages; what the face stage of a --no-text batch costs on one core.
FACE_DATA ?= .build/face-data
# bench/ocr-quality's real pages (bench/ocr-quality.sh makes them), for the faces found on documents.
OCR_DATA ?= .build/ocr-data
face-data:
	sh bench/faces/data/make.sh $(if $(wildcard /work/.mirror),,--skip-git) --out "$(FACE_DATA)"

# PP-OCRv6 in Gloss (--engine neural, when the binary has it) against RapidOCR on one ONNX
# Runtime thread and Tesseract, on bench/ocr-quality's real pages (bench/neural/README.md).
# Not part of bench: it takes 10-20 minutes on two cores. BENCH_ARGS="--group receipts" etc.
bench-neural: build
	GLOSS="$(BIN)/gloss" PPOCR_PYTHON="$(CURDIR)/$(VENV)/bin/python" bench/neural.sh $(BENCH_ARGS)

bench-faces:
	[ -f "$(FACE_DATA)/annotations.json" ] || $(MAKE) face-data
	$(SWIFT) build -c release --product FaceBench
	$(SWIFT) build -c release --product YuNetBench
	/usr/bin/python3 bench/faces/compare.py --gloss "$(BIN)/FaceBench" --repeat 7
	/usr/bin/python3 bench/faces/yunet.py --gloss "$(BIN)/YuNetBench" --cascade-bench "$(BIN)/FaceBench" --data "$(FACE_DATA)"
	/usr/bin/python3 bench/faces/shapes.py --gloss "$(BIN)/YuNetBench" --data "$(FACE_DATA)" $(if $(wildcard $(OCR_DATA)),--pages "$(OCR_DATA)")
	/usr/bin/python3 bench/faces/smallfaces.py --gloss "$(BIN)/YuNetBench" --data "$(FACE_DATA)" $(if $(wildcard $(OCR_DATA)),--pages "$(OCR_DATA)")
	$(SWIFT) build -c release --product gloss
	/usr/bin/python3 bench/faces/paths.py --gloss "$(BIN)/gloss" --yunet "$(BIN)/YuNetBench" --data "$(FACE_DATA)" $(if $(wildcard $(OCR_DATA)),--pages "$(OCR_DATA)")
	/usr/bin/python3 bench/faces/stage.py --gloss "$(BIN)/gloss" --yunet "$(BIN)/YuNetBench" --data "$(FACE_DATA)"

# libFuzzer over the cascade loader, the Exif reader, image decoding and the model reader, 60 s each by default.
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh

fixtures:
	/usr/bin/python3 fixtures/make-fixtures.py
	/usr/bin/python3 fixtures/make-pdf-fixtures.py

install: build
	install -D -m 755 "$(BIN)/gloss" "$(DESTDIR)$(PREFIX)/bin/gloss"
	install -D -m 755 "$(BIN)/gloss-render" "$(DESTDIR)$(PREFIX)/bin/gloss-render"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/gloss" "$(DESTDIR)$(PREFIX)/bin/gloss-render"

clean:
	rm -rf .build
