# Gloss: set up a Debian 12 machine, build, test, benchmark, install.

PREFIX ?= /usr/local
SWIFT ?= swift
# Warnings are defects: the build fails on any.
STRICT = -Xswiftc -warnings-as-errors

# What Gloss links and reads at run time, what the fixture and benchmark scripts use.
APT_PACKAGES = \
	libtesseract-dev libleptonica-dev libpng-dev tesseract-ocr-eng tesseract-ocr-osd opencv-data pkg-config \
	tesseract-ocr fonts-dejavu-core fonts-dejavu-extra python3-pil time

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup build test test-all bench fixtures install uninstall clean

setup:
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(APT_PACKAGES)

build:
	$(SWIFT) build -c release $(STRICT)

test:
	$(SWIFT) build --build-tests $(STRICT)
	$(SWIFT) test --skip-build

bench: build
	bench/ocr.sh

fixtures:
	/usr/bin/python3 fixtures/make-fixtures.py

install: build
	install -D -m 755 "$$($(SWIFT) build -c release --show-bin-path)/gloss" "$(DESTDIR)$(PREFIX)/bin/gloss"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/gloss"

clean:
	rm -rf .build
