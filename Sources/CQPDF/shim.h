#ifndef GLOSS_CQPDF_H
#define GLOSS_CQPDF_H
/* libqpdf's C API (Debian libqpdf-dev, Apache-2.0): reading a document's structure, and the
   job API that runs what the qpdf command does from a JSON description. */
#include <qpdf/qpdf-c.h>
#include <qpdf/qpdfjob-c.h>
#include <qpdf/qpdflogger-c.h>
#endif
