// Tokenising content streams with libqpdf's QPDFTokenizer, through a TokenFilter: the text
// rendering mode is followed through q/Q, and text-showing operators in mode 3 are dropped.
#include "gloss_qpdf_content.h"

#include <qpdf/Pl_Buffer.hh>
#include <qpdf/Pl_Discard.hh>
#include <qpdf/Pl_Flate.hh>
#include <qpdf/QPDF.hh>
#include <qpdf/QPDFPageDocumentHelper.hh>
#include <qpdf/QPDFPageObjectHelper.hh>
#include <qpdf/QPDFWriter.hh>

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

void report(char* error, size_t size, std::string const& message) {
    if (error == nullptr || size == 0) return;
    std::strncpy(error, message.c_str(), size - 1);
    error[size - 1] = '\0';
}

bool isTextShowing(std::string const& op) { return op == "Tj" || op == "TJ" || op == "'" || op == "\""; }

// Follows the rendering mode and counts (or drops) the text shown in each kind.
class TextFilter : public QPDFObjectHandle::TokenFilter {
  public:
    explicit TextFilter(bool strip) : strip(strip) {}

    int visible = 0;
    int invisible = 0;

    void handleToken(QPDFTokenizer::Token const& token) override {
        if (token.getType() != QPDFTokenizer::tt_word) {
            if (token.getType() == QPDFTokenizer::tt_integer) lastInteger = std::atoi(token.getValue().c_str());
            // Counting, the operands are not needed past the last integer (Tr's); stripping,
            // they are held until their operator, but not without end: a stream of millions of
            // operands and no operator (40 KB deflated) held gigabytes.
            if (!strip) return;
            if (pending.size() >= maximumPending) flush();
            pending.push_back(token);
            return;
        }
        std::string const op = token.getValue();
        if (op == "q") {
            saved.push_back(mode);
        } else if (op == "Q") {
            if (!saved.empty()) { mode = saved.back(); saved.pop_back(); }
        } else if (op == "Tr") {
            if (lastInteger) mode = *lastInteger;
        } else if (isTextShowing(op)) {
            bool const hidden = mode == 3;
            (hidden ? invisible : visible) += (mode == 7 ? 0 : 1);
            if (hidden && strip) {
                // The operator still moves to the next line (' and ") and sets the spacing (").
                if (op == "\"") {
                    std::vector<std::string> numbers;
                    for (auto const& operand : pending) {
                        auto const type = operand.getType();
                        if (type == QPDFTokenizer::tt_integer || type == QPDFTokenizer::tt_real) numbers.push_back(operand.getRawValue());
                    }
                    if (numbers.size() >= 2) write(numbers[0] + " Tw " + numbers[1] + " Tc ");
                    write("T*\n");
                } else if (op == "'") {
                    write("T*\n");
                }
                pending.clear();
                removed = true;
                return;
            }
        }
        flush();
        writeToken(token);
    }

    void handleEOF() override { flush(); }

    // Far more than any text-showing operator's operands (a TJ array of a long line).
    static constexpr size_t maximumPending = 1 << 16;

    bool removedAny() const { return removed; }

  private:
    void flush() {
        for (auto const& token : pending) writeToken(token);
        pending.clear();
        lastInteger.reset();
    }

    bool strip;
    bool removed = false;
    int mode = 0;
    std::vector<int> saved;
    std::vector<QPDFTokenizer::Token> pending;
    // The last integer operand since the last operator, for Tr.
    std::optional<int> lastInteger;
};

// How a page's content leaves the graphics state, which the layer must be drawn outside of:
// the most saves (q) it restores (Q) beyond its own, the saves it leaves open at its end, and
// whether it ends inside a text object (BT without ET). Many producers leave a q open; drawn
// after it unclosed, the layer would be under the page's last transformation.
class StateBalance : public QPDFObjectHandle::TokenFilter {
  public:
    int depth = 0;
    int below = 0;
    bool inText = false;

    void handleToken(QPDFTokenizer::Token const& token) override {
        if (token.getType() != QPDFTokenizer::tt_word) return;
        std::string const& op = token.getValue();
        if (op == "q") {
            ++depth;
        } else if (op == "Q") {
            --depth;
            if (-depth > below) below = -depth;
        } else if (op == "BT") {
            inText = true;
        } else if (op == "ET") {
            inText = false;
        }
    }
};

// The content of a page or form XObject through the filter; the filtered bytes when asked.
std::string filtered(QPDFPageObjectHelper holder, TextFilter& filter) {
    Pl_Buffer buffer("gloss filtered content");
    holder.filterContents(&filter, &buffer);
    auto bytes = buffer.getBufferSharedPointer();
    return std::string(reinterpret_cast<char const*>(bytes->getBuffer()), bytes->getSize());
}

std::string deflated(std::string const& data) {
    Pl_Buffer buffer("gloss deflated content");
    Pl_Flate flate("gloss deflate", &buffer, Pl_Flate::a_deflate);
    flate.write(reinterpret_cast<unsigned char const*>(data.data()), data.size());
    flate.finish();
    auto bytes = buffer.getBufferSharedPointer();
    return std::string(reinterpret_cast<char const*>(bytes->getBuffer()), bytes->getSize());
}

// Each form XObject a page draws, directly or through others, once.
std::vector<QPDFObjectHandle> formsOf(QPDFPageObjectHelper& page) {
    std::vector<QPDFObjectHandle> forms;
    std::set<QPDFObjGen> seen;
    page.forEachFormXObject(true, [&](QPDFObjectHandle& form, QPDFObjectHandle&, std::string const&) {
        if (seen.insert(form.getObjGen()).second) forms.push_back(form);
    });
    return forms;
}

}  // namespace

extern "C" int gloss_qpdf_page_text(char const* path, int* kinds, int count, char* error, size_t error_size) {
    try {
        QPDF pdf;
        pdf.setSuppressWarnings(true);
        pdf.processFile(path);
        auto pages = QPDFPageDocumentHelper(pdf).getAllPages();
        for (int index = 0; index < count && index < static_cast<int>(pages.size()); ++index) {
            TextFilter filter(false);
            filtered(pages[index], filter);
            for (auto& form : formsOf(pages[index])) filtered(QPDFPageObjectHelper(form), filter);
            kinds[index] = (filter.visible > 0 ? GLOSS_QPDF_VISIBLE_TEXT : 0) | (filter.invisible > 0 ? GLOSS_QPDF_INVISIBLE_TEXT : 0);
        }
        return static_cast<int>(pages.size());
    } catch (std::exception const& exception) {
        report(error, error_size, exception.what());
        return -1;
    }
}

namespace {

// The numbers of a `cm` operator, written so that qpdf's own writer's precision is not needed.
std::string matrixText(double const* m) {
    std::string text;
    for (int i = 0; i < 6; ++i) {
        char number[32];
        std::snprintf(number, sizeof number, "%.4f ", m[i]);
        text += number;
    }
    return text + "cm";
}

void stripInvisibleText(QPDF& pdf, std::vector<QPDFPageObjectHelper>& all, int const* strip, int count) {
    std::set<QPDFObjGen> done;
    for (int n = 0; n < count; ++n) {
        int const index = strip[n];
        if (index < 0 || index >= static_cast<int>(all.size())) continue;
        auto& page = all[index];
        TextFilter filter(true);
        std::string const content = filtered(page, filter);
        if (filter.removedAny()) {
            auto stream = QPDFObjectHandle::newStream(&pdf);
            stream.replaceStreamData(deflated(content), QPDFObjectHandle::newName("/FlateDecode"), QPDFObjectHandle::newNull());
            page.getObjectHandle().replaceKey("/Contents", stream);
        }
        for (auto& form : formsOf(page)) {
            if (!done.insert(form.getObjGen()).second) continue;
            TextFilter formFilter(true);
            std::string const formContent = filtered(QPDFPageObjectHelper(form), formFilter);
            if (formFilter.removedAny()) {
                form.replaceStreamData(deflated(formContent), QPDFObjectHandle::newName("/FlateDecode"), QPDFObjectHandle::newNull());
            }
        }
    }
}

// A dictionary at `key` of `holder`, made when there is none.
QPDFObjectHandle dictionaryAt(QPDFObjectHandle holder, std::string const& key) {
    auto value = holder.getKey(key);
    if (!value.isDictionary()) {
        value = QPDFObjectHandle::newDictionary();
        holder.replaceKey(key, value);
    }
    return value;
}

}  // namespace

namespace {

// A name's value, or "" when the object is not a name.
std::string nameOf(QPDFObjectHandle value) { return value.isName() ? value.getName() : std::string(); }

// The first thing in `pdf` that PDF/A-2b forbids and a graft cannot mend, or "".
// Whether a colour space is DeviceCMYK or builds on it (Indexed, DeviceN's alternate...): PDF/A-2b
// allows it only under a CMYK output intent (6.2.4.3), and the graft's intent is sRGB. An
// ICC-based space is device-independent and allowed.
bool usesDeviceCMYK(QPDFObjectHandle space) {
    if (space.isName()) return space.getName() == "/DeviceCMYK";
    if (!space.isArray() || space.getArrayNItems() == 0) return false;
    auto items = space.getArrayAsVector();
    if (items[0].isName() && items[0].getName() == "/ICCBased") return false;
    for (auto& item : items) {
        if (item.isName() && item.getName() == "/DeviceCMYK") return true;
    }
    return false;
}

// Why the page annotations keep a graft from PDF/A-2b (6.3): a kind it forbids, one that would
// not print (the Print flag, bit 3, is required of all but pop-ups), or one without an
// appearance stream (required of all but pop-ups and links). Empty when none.
std::string annotationRefusal(QPDF& pdf) {
    for (auto& page : QPDFPageDocumentHelper(pdf).getAllPages()) {
        auto annotations = page.getObjectHandle().getKey("/Annots");
        if (!annotations.isArray()) continue;
        for (auto& annotation : annotations.getArrayAsVector()) {
            if (!annotation.isDictionary()) continue;
            std::string const subtype = nameOf(annotation.getKey("/Subtype"));
            if (subtype == "/Screen" || subtype == "/Movie" || subtype == "/Sound" || subtype == "/3D")
                return "it has " + subtype.substr(1) + " annotations";
            if (subtype == "/Popup") continue;
            auto flags = annotation.getKey("/F");
            if (!flags.isInteger() || (flags.getIntValue() & 4) == 0) return "it has annotations that do not print (no Print flag)";
            if (subtype != "/Link" && !annotation.getKey("/AP").isDictionary()) return "it has annotations without an appearance";
        }
    }
    return "";
}

// Whether content paints in DeviceCMYK by its operators: `k` and `K`, or `cs` and `CS` naming
// it. Only the last name operand is kept, so a flood of operands costs nothing.
class CMYKOperators : public QPDFObjectHandle::TokenFilter {
  public:
    bool found = false;

    void handleToken(QPDFTokenizer::Token const& token) override {
        auto const type = token.getType();
        if (type == QPDFTokenizer::tt_name) {
            lastName = token.getValue();
        } else if (type == QPDFTokenizer::tt_word) {
            std::string const& op = token.getValue();
            if (op == "k" || op == "K" || ((op == "cs" || op == "CS") && lastName == "/DeviceCMYK")) found = true;
            lastName.clear();
        }
    }

  private:
    std::string lastName;
};

// Whether any page, or any form a page draws, paints in DeviceCMYK by its operators. A form
// drawn by many pages (a letterhead) is read once.
bool paintsDeviceCMYK(QPDF& pdf) {
    CMYKOperators operators;
    Pl_Discard discard;
    std::set<QPDFObjGen> read;
    for (auto& page : QPDFPageDocumentHelper(pdf).getAllPages()) {
        page.filterContents(&operators, &discard);
        for (auto& form : formsOf(page)) {
            if (read.insert(form.getObjGen()).second) QPDFPageObjectHelper(form).filterContents(&operators, &discard);
        }
        if (operators.found) return true;
    }
    return false;
}

std::string refusal(QPDF& pdf) {
    if (pdf.isEncrypted()) return "it is encrypted";
    auto const version = pdf.getPDFVersion();
    if (!version.empty() && version[0] >= '2') return "it is PDF " + version + ", and PDF/A-2 is PDF 1.7 at most";
    auto const annotations = annotationRefusal(pdf);
    if (!annotations.empty()) return annotations;
    auto trailer = pdf.getTrailer();
    auto root = trailer.getKey("/Root");
    auto names = root.getKey("/Names");
    if (names.isDictionary() && names.hasKey("/JavaScript")) return "it has JavaScript";
    if (names.isDictionary() && names.hasKey("/EmbeddedFiles")) return "it has embedded files";
    if (root.hasKey("/OpenAction") || root.hasKey("/AA")) return "it has document actions";
    auto metadata = root.getKey("/Metadata");
    if (metadata.isStream()) {
        auto data = metadata.getStreamData(qpdf_dl_all);
        std::string const xml(reinterpret_cast<char const*>(data->getBuffer()), data->getSize());
        auto const at = xml.find("pdfaid:part");
        if (at != std::string::npos) {
            auto const digit = xml.find_first_of("0123456789", at);
            if (digit != std::string::npos && xml[digit] != '2') return "it claims another PDF/A part";
        }
    }
    for (auto& object : pdf.getAllObjects()) {
        auto dictionary = object.isStream() ? object.getDict() : object;
        if (!dictionary.isDictionary()) continue;
        if (object.isStream()) {
            auto filter = dictionary.getKey("/Filter");
            std::vector<QPDFObjectHandle> filters = filter.isArray() ? filter.getArrayAsVector() : std::vector<QPDFObjectHandle>{filter};
            for (auto& one : filters) {
                if (nameOf(one) == "/LZWDecode") return "it has LZW-compressed streams";
            }
        }
        auto const type = nameOf(dictionary.getKey("/Type")), subtype = nameOf(dictionary.getKey("/Subtype"));
        auto const s = nameOf(dictionary.getKey("/S"));
        if (s == "/JavaScript" || s == "/Launch" || s == "/ImportData" || s == "/ResetForm" || s == "/Movie" || s == "/Sound")
            return "it has " + s.substr(1) + " actions";
        if (dictionary.hasKey("/AA")) return "it has additional actions";
        if (type == "/Group" || dictionary.getKey("/Group").isDictionary()) {
            auto group = type == "/Group" ? dictionary : dictionary.getKey("/Group");
            if (nameOf(group.getKey("/S")) == "/Transparency") return "it has transparency groups";
        }
        if (dictionary.hasKey("/SMask") && nameOf(dictionary.getKey("/SMask")) != "/None") return "it has soft masks";
        if (type == "/Font" && subtype != "/Type3" && subtype != "/Type0") {
            auto descriptor = dictionary.getKey("/FontDescriptor");
            if (!descriptor.isDictionary() || !(descriptor.hasKey("/FontFile") || descriptor.hasKey("/FontFile2") || descriptor.hasKey("/FontFile3")))
                return "it has fonts that are not embedded";
        }
        if (type == "/FontDescriptor" && !(dictionary.hasKey("/FontFile") || dictionary.hasKey("/FontFile2") || dictionary.hasKey("/FontFile3")))
            return "it has fonts that are not embedded";
        if (subtype == "/FileAttachment") return "it has file attachments";
        auto space = dictionary.getKey("/ColorSpace");
        bool cmyk = usesDeviceCMYK(space);
        if (space.isDictionary()) {
            for (auto& key : space.getKeys()) cmyk = cmyk || usesDeviceCMYK(space.getKey(key));
        }
        if (cmyk) return "it has DeviceCMYK colour, and PDF/A-2b allows it only under a CMYK output intent";
        auto interpolate = dictionary.getKey("/Interpolate");
        if (interpolate.isBool() && interpolate.getBoolValue()) return "it has interpolated images";
    }
    if (paintsDeviceCMYK(pdf)) return "it has DeviceCMYK colour, and PDF/A-2b allows it only under a CMYK output intent";
    return "";
}

QPDFObjectHandle text(std::string const& value) { return QPDFObjectHandle::newUnicodeString(value); }

}  // namespace

extern "C" int gloss_qpdf_archive_refusal(char const* path, char* reason, size_t reason_size) {
    try {
        QPDF pdf;
        pdf.setSuppressWarnings(true);
        pdf.processFile(path);
        auto const why = refusal(pdf);
        report(reason, reason_size, why);
        return why.empty() ? 0 : 1;
    } catch (std::exception const& exception) {
        report(reason, reason_size, exception.what());
        return -1;
    }
}

extern "C" int gloss_qpdf_graft(char const* input, char const* layer, int const* pages, double const* matrices, int count,
                                int const* strip, int strip_count, char const* output, char* error, size_t error_size) {
    return gloss_qpdf_graft_archive(input, layer, pages, matrices, count, strip, strip_count, output, nullptr, nullptr, 0,
                                    nullptr, nullptr, 0, error, error_size);
}

extern "C" int gloss_qpdf_graft_archive(char const* input, char const* layer, int const* pages, double const* matrices, int count,
                                        int const* strip, int strip_count, char const* output, char const* xmp,
                                        unsigned char const* profile, size_t profile_size, char const* const* info_keys,
                                        char const* const* info_values, int info_count, char* error, size_t error_size) {
    try {
        QPDF pdf;
        pdf.setSuppressWarnings(true);
        pdf.processFile(input);
        auto all = QPDFPageDocumentHelper(pdf).getAllPages();
        stripInvisibleText(pdf, all, strip, strip_count);
        QPDF layers;
        std::vector<QPDFPageObjectHelper> layerPages;
        if (count > 0) {
            layers.setSuppressWarnings(true);
            layers.processFile(layer);
            layerPages = QPDFPageDocumentHelper(layers).getAllPages();
        }
        for (int i = 0; i < count && i < static_cast<int>(layerPages.size()); ++i) {
            int const index = pages[i];
            if (index < 0 || index >= static_cast<int>(all.size())) continue;
            auto& page = all[index];
            // The form qpdf makes holds the layer page's content decoded: compressed again here,
            // since the writer preserves every stream as it finds it.
            auto layerForm = layerPages[i].getFormXObjectForPage(false);
            auto data = layerForm.getStreamData(qpdf_dl_all);
            layerForm.replaceStreamData(deflated(std::string(reinterpret_cast<char const*>(data->getBuffer()), data->getSize())),
                                        QPDFObjectHandle::newName("/FlateDecode"), QPDFObjectHandle::newNull());
            auto form = pdf.copyForeignObject(layerForm);
            // The page's own resources, inherited ones copied onto it; names only added.
            auto resources = page.getAttribute("/Resources", true);
            if (!resources.isDictionary()) {
                resources = QPDFObjectHandle::newDictionary();
                page.getObjectHandle().replaceKey("/Resources", resources);
            }
            auto xobjects = dictionaryAt(resources, "/XObject");
            int suffix = 0;
            std::string const name = resources.getUniqueResourceName("/GlossText", suffix);
            xobjects.replaceKey(name, form);
            // The page is drawn inside saves of its own, as many as it restores and one more, and
            // every save it leaves open is closed before the layer is drawn in the page's first
            // state.
            StateBalance balance;
            Pl_Discard discard;
            page.filterContents(&balance, &discard);
            int const saves = 1 + balance.below;
            std::string opening, closing = "\n";
            for (int s = 0; s < saves; ++s) opening += "q\n";
            if (balance.inText) closing += "ET\n";
            for (int s = 0; s < saves + balance.depth; ++s) closing += "Q\n";
            page.addPageContents(QPDFObjectHandle::newStream(&pdf, opening), true);
            page.addPageContents(
                QPDFObjectHandle::newStream(&pdf, closing + "q " + matrixText(matrices + 6 * i) + " " + name + " Do Q\n"), false);
        }
        if (xmp != nullptr) {
            auto root = pdf.getRoot();
            auto metadata = QPDFObjectHandle::newStream(&pdf, std::string(xmp));
            metadata.getDict().replaceKey("/Type", QPDFObjectHandle::newName("/Metadata"));
            metadata.getDict().replaceKey("/Subtype", QPDFObjectHandle::newName("/XML"));
            root.replaceKey("/Metadata", metadata);
            auto icc = QPDFObjectHandle::newStream(&pdf);
            icc.replaceStreamData(deflated(std::string(reinterpret_cast<char const*>(profile), profile_size)),
                                  QPDFObjectHandle::newName("/FlateDecode"), QPDFObjectHandle::newNull());
            icc.getDict().replaceKey("/N", QPDFObjectHandle::newInteger(3));
            auto intent = QPDFObjectHandle::newDictionary();
            intent.replaceKey("/Type", QPDFObjectHandle::newName("/OutputIntent"));
            intent.replaceKey("/S", QPDFObjectHandle::newName("/GTS_PDFA1"));
            intent.replaceKey("/OutputConditionIdentifier", QPDFObjectHandle::newString("sRGB IEC61966-2.1"));
            intent.replaceKey("/RegistryName", QPDFObjectHandle::newString("http://www.color.org"));
            intent.replaceKey("/Info", QPDFObjectHandle::newString("sRGB IEC61966-2.1"));
            intent.replaceKey("/DestOutputProfile", icc);
            auto intents = QPDFObjectHandle::newArray();
            intents.appendItem(pdf.makeIndirectObject(intent));
            root.replaceKey("/OutputIntents", intents);
            // The input's information dictionary, its entries that the XMP repeats replaced by
            // those given (so the two agree, ISO 19005-2 6.6.2.3.1); its others stay.
            auto info = QPDFObjectHandle::newDictionary();
            auto old = pdf.getTrailer().getKey("/Info");
            if (old.isDictionary()) {
                for (auto const& key : old.getKeys()) info.replaceKey(key, old.getKey(key));
            }
            for (char const* key : {"/Title", "/Author", "/Subject", "/Keywords", "/Creator", "/Producer", "/CreationDate",
                                    "/ModDate", "/Trapped"}) {
                info.removeKey(key);
            }
            for (int i = 0; i < info_count; ++i) info.replaceKey(info_keys[i], text(info_values[i]));
            pdf.getTrailer().replaceKey("/Info", pdf.makeIndirectObject(info));
        }
        QPDFWriter writer(pdf, output);
        writer.setStreamDataMode(qpdf_s_preserve);
        // Every stream's data as it was read; the dictionaries and arrays, which qpdf writes
        // one key a line, packed into compressed object streams (PDF 1.5, allowed by PDF/A-2),
        // which takes 1.5 to 2.2 KB off each of the graft tests' five real PDFs.
        writer.setObjectStreamMode(qpdf_o_generate);
        if (xmp != nullptr) writer.setDeterministicID(true);
        writer.write();
        return 0;
    } catch (std::exception const& exception) {
        report(error, error_size, exception.what());
        return -1;
    }
}
