// Gloss: a driver around libfacedetection's YuNet, used as the reference for Gloss's own
// implementation. Built by build.sh (next to this file); see README.md there.
//
//   reference [--runs N] [--top K] [--dump DIR] IMAGE.ppm
//
// IMAGE is a binary PPM (P6, RGB) or PGM (P5, grey, replicated to three channels), maxval 255.
// It is handed to upstream exactly as it is (no resizing): channels reordered to B, G, R, which
// is what facedetect_cnn expects. Prints one JSON object on stdout: upstream's detections, each
// with its float box, landmarks, cls, obj and prior; the K (default 10) highest-scoring priors
// before the threshold and NMS; and the median time of N (default 11) calls of facedetect_cnn.
//
// The driver links upstream's static library with the linker's --wrap for the functions that
// facedetectcnn-model.cpp calls in facedetectcnn.cpp. The wrappers pass every call through
// unchanged; they only look: detection_output's wrapper keeps the decoded candidate arrays so
// that every detection can be reported with its float box, landmarks, cls and obj and the prior
// it came from; with --dump, the others write each layer's output to DIR.

#include "facedetectcnn.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// Upstream's 53 loaded filters (facedetectcnn-model.cpp); a filter's index is its position here.
extern Filters<float> g_pFilters[53];

// ---------------------------------------------------------------------------------------------
// Wrapped functions. The asm labels give each declaration the symbol the linker's
// --wrap=SYMBOL option routes to (__wrap_SYMBOL) or from (__real_SYMBOL). build.sh checks that
// every SYMBOL exists in the library, so a change of signature upstream fails at link time.

#define SYM_IM2COL "_Z36setDataFrom3x3S2P1to1x1S1P0FromImagePKhiiiii"
#define SYM_CONV "_Z11convolutionRK9CDataBlobIfERK7FiltersIfEb"
#define SYM_CONVDP "_Z13convolutionDPRK9CDataBlobIfERK7FiltersIfES6_b"
#define SYM_UNIT "_Z21convolution4layerUnitRK9CDataBlobIfERK7FiltersIfES6_S6_S6_b"
#define SYM_POOL "_Z15maxpooling2x2S2RK9CDataBlobIfE"
#define SYM_UP "_Z10upsampleX2RK9CDataBlobIfE"
#define SYM_ADD "_Z10elementAddRK9CDataBlobIfES2_"
#define SYM_DETOUT "_Z16detection_outputRK9CDataBlobIfES2_S2_S2_ffii"

typedef CDataBlob<float> Blob;
typedef Filters<float> Filt;

// Declares real_NAME (upstream's function) and wrap_NAME (defined below) for one symbol.
#define WRAPPED(ret, name, sym, params)            \
    ret real_##name params __asm__("__real_" sym); \
    ret wrap_##name params __asm__("__wrap_" sym);

WRAPPED(Blob, im2col, SYM_IM2COL, (const unsigned char*, int, int, int, int, int))
WRAPPED(Blob, conv, SYM_CONV, (const Blob&, const Filt&, bool))
WRAPPED(Blob, convdp, SYM_CONVDP, (const Blob&, const Filt&, const Filt&, bool))
WRAPPED(Blob, unit, SYM_UNIT, (const Blob&, const Filt&, const Filt&, const Filt&, const Filt&, bool))
WRAPPED(Blob, pool, SYM_POOL, (const Blob&))
WRAPPED(Blob, up, SYM_UP, (const Blob&))
WRAPPED(Blob, add, SYM_ADD, (const Blob&, const Blob&))
WRAPPED(std::vector<FaceRect>, detout, SYM_DETOUT,
        (const Blob&, const Blob&, const Blob&, const Blob&, float, float, int, int))

// ---------------------------------------------------------------------------------------------
// State shared with the wrappers.

static bool g_capture = false;      // keep detection_output's inputs and outputs
static std::string g_dumpDir;       // non-empty: dump every layer (first run only)
static int g_paddedW = 0, g_paddedH = 0;
static int g_dumpSeq = 0;
static std::string g_dumpIndex;     // JSON array body

struct Captured {
    std::vector<float> cls, obj, reg, kps;  // per prior: 1, 1, 4, 10 floats
    float overlap = 0, confidence = 0;
    int topK = 0, keepTopK = 0;
    std::vector<FaceRect> faces;
    bool valid = false;
};
static Captured g_cap;

static void die(const char* message) {
    std::fprintf(stderr, "reference: %s\n", message);
    std::exit(1);
}

static int filterIndex(const Filt& f) {
    long i = &f - g_pFilters;
    if (i < 0 || i >= 53) die("a filter that is not one of upstream's 53");
    return (int)i;
}

static std::vector<float> flatten(const Blob& b) {
    std::vector<float> out;
    out.reserve((size_t)b.rows * b.cols * b.channels);
    for (int r = 0; r < b.rows; r++)
        for (int c = 0; c < b.cols; c++) {
            const float* p = b.ptr(r, c);
            out.insert(out.end(), p, p + b.channels);
        }
    return out;
}

static void dump(const Blob& b, const std::string& name, const std::string& what) {
    if (g_dumpDir.empty()) return;
    char file[256];
    std::snprintf(file, sizeof file, "%03d_%s.bin", g_dumpSeq++, name.c_str());
    std::vector<float> v = flatten(b);
    std::string path = g_dumpDir + "/" + file;
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) die("cannot write a dump file");
    // x86-64 is little-endian: the floats are written as they are in memory.
    if (std::fwrite(v.data(), sizeof(float), v.size(), f) != v.size()) die("short write");
    std::fclose(f);
    // Input pixels per cell; 0 for the flat 1 x 1 x N candidate arrays.
    int stride = b.rows > 1 ? g_paddedH / b.rows : 0;
    char entry[1024];
    std::snprintf(entry, sizeof entry,
                  "%s\n  {\"file\": \"%s\", \"name\": \"%s\", \"what\": \"%s\", "
                  "\"shape\": [%d, %d, %d], \"stride\": %d}",
                  g_dumpIndex.empty() ? "" : ",", file, name.c_str(), what.c_str(), b.rows, b.cols,
                  b.channels, stride);
    g_dumpIndex += entry;
}

static bool sameBlob(const Blob& a, const Blob& b) {
    if (a.rows != b.rows || a.cols != b.cols || a.channels != b.channels) return false;
    for (int r = 0; r < a.rows; r++)
        for (int c = 0; c < a.cols; c++)
            if (std::memcmp(a.ptr(r, c), b.ptr(r, c), sizeof(float) * a.channels) != 0) return false;
    return true;
}

static std::string layerName(int index) {
    const Filt& f = g_pFilters[index];
    char name[32];
    std::snprintf(name, sizeof name, "L%02d_%s", index, f.is_depthwise ? "dw" : "pw");
    return name;
}

// One convolution at a time, through upstream's own `convolution`, dumping each output.
static Blob dumpedConv(const Blob& in, const Filt& f, bool relu) {
    Blob out = real_conv(in, f, relu);
    int i = filterIndex(f);
    char what[160];
    std::snprintf(what, sizeof what, "upstream filter %d: %s %d->%d%s", i,
                  f.is_depthwise ? "3x3 depthwise" : "1x1 pointwise", f.channels, f.num_filters,
                  relu ? " + ReLU" : ", no ReLU");
    dump(out, layerName(i) + (relu ? "_relu" : ""), what);
    return out;
}

Blob wrap_im2col(const unsigned char* data, int w, int h, int ch, int step, int pad) {
    Blob out = real_im2col(data, w, h, ch, step, pad);
    dump(out, "input_im2col",
         "the image as upstream feeds it to filter 0: 27 of 32 channels used, "
         "channel (ky*3+kx)*3+c for 3x3 tap (ky,kx) around input pixel (2r, 2c), image channel c "
         "(B,G,R); zero outside the image and in channels 27..31");
    return out;
}

Blob wrap_conv(const Blob& in, const Filt& f, bool relu) {
    if (g_dumpDir.empty()) return real_conv(in, f, relu);
    return dumpedConv(in, f, relu);
}

Blob wrap_convdp(const Blob& in, const Filt& p, const Filt& d, bool relu) {
    Blob out = real_convdp(in, p, d, relu);
    if (!g_dumpDir.empty()) {
        Blob t = dumpedConv(in, p, false);
        Blob u = dumpedConv(t, d, relu);
        if (!sameBlob(u, out)) die("layer-by-layer result differs from convolutionDP");
    }
    return out;
}

Blob wrap_unit(const Blob& in, const Filt& p1, const Filt& d1, const Filt& p2, const Filt& d2,
               bool relu) {
    Blob out = real_unit(in, p1, d1, p2, d2, relu);
    if (!g_dumpDir.empty()) {
        Blob a = dumpedConv(in, p1, false);
        Blob b = dumpedConv(a, d1, true);
        Blob c = dumpedConv(b, p2, false);
        Blob d = dumpedConv(c, d2, relu);
        if (!sameBlob(d, out)) die("layer-by-layer result differs from convolution4layerUnit");
    }
    return out;
}

Blob wrap_pool(const Blob& in) {
    Blob out = real_pool(in);
    dump(out, "maxpool", "2x2 stride-2 max pooling");
    return out;
}

Blob wrap_up(const Blob& in) {
    Blob out = real_up(in);
    dump(out, "upsample", "nearest-neighbour 2x upsampling");
    return out;
}

Blob wrap_add(const Blob& a, const Blob& b) {
    Blob out = real_add(a, b);
    dump(out, "add", "element-wise sum of the upsampled coarser map and the backbone map");
    return out;
}

std::vector<FaceRect> wrap_detout(const Blob& cls, const Blob& reg, const Blob& kps,
                                  const Blob& obj, float overlap, float confidence, int topK,
                                  int keepTopK) {
    std::vector<FaceRect> faces =
        real_detout(cls, reg, kps, obj, overlap, confidence, topK, keepTopK);
    if (g_capture) {
        g_cap.cls = flatten(cls);
        g_cap.obj = flatten(obj);
        g_cap.reg = flatten(reg);
        g_cap.kps = flatten(kps);
        g_cap.overlap = overlap;
        g_cap.confidence = confidence;
        g_cap.topK = topK;
        g_cap.keepTopK = keepTopK;
        g_cap.faces = faces;
        g_cap.valid = true;
    }
    dump(cls, "final_cls_sigmoid", "all priors (stride 8 row-major, then 16, then 32): sigmoid(cls)");
    dump(obj, "final_obj_sigmoid", "all priors: sigmoid(obj)");
    dump(reg, "final_bbox_decoded", "all priors: x1, y1, x2, y2 in input pixels");
    dump(kps, "final_kps_decoded", "all priors: 5 x (x, y) in input pixels");
    return faces;
}

// ---------------------------------------------------------------------------------------------
// PPM/PGM input.

static bool readToken(FILE* f, std::string& out) {
    out.clear();
    int c = std::fgetc(f);
    for (;;) {
        while (c == ' ' || c == '\t' || c == '\n' || c == '\r') c = std::fgetc(f);
        if (c == '#') {
            while (c != '\n' && c != EOF) c = std::fgetc(f);
            continue;
        }
        break;
    }
    while (c != EOF && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        out.push_back((char)c);
        c = std::fgetc(f);
    }
    return !out.empty();  // the single whitespace after the token has been consumed
}

// Returns B, G, R interleaved, rows top to bottom, no row padding.
static std::vector<unsigned char> readImage(const char* path, int& width, int& height) {
    FILE* f = std::fopen(path, "rb");
    if (!f) die("cannot open the image");
    std::string magic, w, h, maxval;
    if (!readToken(f, magic) || !readToken(f, w) || !readToken(f, h) || !readToken(f, maxval))
        die("not a PPM/PGM header");
    if (magic != "P6" && magic != "P5") die("only binary PPM (P6) and PGM (P5) are read");
    if (maxval != "255") die("only maxval 255 is read");
    width = std::atoi(w.c_str());
    height = std::atoi(h.c_str());
    if (width <= 0 || height <= 0 || width > 16384 || height > 16384) die("bad image size");
    int channels = magic == "P6" ? 3 : 1;
    std::vector<unsigned char> raw((size_t)width * height * channels);
    if (std::fread(raw.data(), 1, raw.size(), f) != raw.size()) die("truncated image data");
    std::fclose(f);
    std::vector<unsigned char> bgr((size_t)width * height * 3);
    for (size_t i = 0; i < (size_t)width * height; i++) {
        if (channels == 3) {
            bgr[3 * i] = raw[3 * i + 2];
            bgr[3 * i + 1] = raw[3 * i + 1];
            bgr[3 * i + 2] = raw[3 * i];
        } else {
            bgr[3 * i] = bgr[3 * i + 1] = bgr[3 * i + 2] = raw[i];
        }
    }
    return bgr;
}

// ---------------------------------------------------------------------------------------------

static std::string num(double v) {
    char s[64];
    std::snprintf(s, sizeof s, "%.9g", v);
    return s;
}

static const char* usage = "usage: reference [--runs N] [--top K] [--dump DIR] IMAGE.ppm";

// One prior's decoded outputs as JSON members (no braces).
static std::string priorJSON(size_t i, const int* start, const int* mapCols) {
    static const int strides[3] = {8, 16, 32};
    int s = (int)i < start[1] ? 0 : (int)i < start[2] ? 1 : 2;
    int local = (int)i - start[s];
    const float* b = &g_cap.reg[4 * i];
    const float* lm = &g_cap.kps[10 * i];
    std::string d = "\"score\": " + num(std::sqrt(g_cap.cls[i] * g_cap.obj[i])) +
                    ", \"cls\": " + num(g_cap.cls[i]) + ", \"obj\": " + num(g_cap.obj[i]) +
                    ", \"prior\": {\"index\": " + std::to_string(i) + ", \"stride\": " +
                    std::to_string(strides[s]) + ", \"row\": " + std::to_string(local / mapCols[s]) +
                    ", \"col\": " + std::to_string(local % mapCols[s]) + "}, \"box\": {\"x1\": " +
                    num(b[0]) + ", \"y1\": " + num(b[1]) + ", \"x2\": " + num(b[2]) + ", \"y2\": " +
                    num(b[3]) + "}, \"landmarks\": [";
    for (int j = 0; j < 10; j++) d += (j ? ", " : "") + num(lm[j]);
    return d + "]";
}

int main(int argc, char** argv) {
    int runs = 11, top = 10;
    const char* image = nullptr;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
        else if (a == "--top" && i + 1 < argc) top = std::atoi(argv[++i]);
        else if (a == "--dump" && i + 1 < argc) g_dumpDir = argv[++i];
        else if (a[0] == '-') die(usage);
        else image = argv[i];
    }
    if (!image || runs < 1 || top < 0) die(usage);

    int width = 0, height = 0;
    std::vector<unsigned char> bgr = readImage(image, width, height);
    g_paddedW = ((width - 1) / 32 + 1) * 32;
    g_paddedH = ((height - 1) / 32 + 1) * 32;

    std::vector<unsigned char> buffer(FACEDETECTION_RESULT_BUFFER_SIZE);

    // First run: captured (and dumped, if asked); also loads upstream's filters.
    g_capture = true;
    int* result = facedetect_cnn(buffer.data(), bgr.data(), width, height, width * 3);
    g_capture = false;
    const std::string dumpTarget = g_dumpDir;
    g_dumpDir.clear();
    if (!result || !g_cap.valid) die("facedetect_cnn gave no result");
    int count = result[0];
    std::vector<short> shorts((size_t)count * FACEDETECTION_RESULT_STRIDE_SHORTS);
    std::memcpy(shorts.data(), result + 1, shorts.size() * sizeof(short));

    // Timed runs.
    std::vector<double> ms;
    for (int i = 0; i < runs; i++) {
        auto t0 = std::chrono::steady_clock::now();
        facedetect_cnn(buffer.data(), bgr.data(), width, height, width * 3);
        auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    double median = runs % 2 ? sorted[runs / 2] : (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2;

    // Priors: stride 8 (row-major), then 16, then 32.
    const int strides[3] = {8, 16, 32};
    int mapRows[3], mapCols[3], start[4];
    start[0] = 0;
    for (int s = 0; s < 3; s++) {
        mapRows[s] = g_paddedH / strides[s];
        mapCols[s] = g_paddedW / strides[s];
        start[s + 1] = start[s] + mapRows[s] * mapCols[s];
    }
    const size_t priors = g_cap.cls.size();
    if ((size_t)start[3] != priors || g_cap.obj.size() != priors || g_cap.reg.size() != 4 * priors ||
        g_cap.kps.size() != 10 * priors)
        die("the captured arrays do not have one entry per prior");
    if ((int)g_cap.faces.size() != count) die("facedetect_cnn and detection_output disagree on the count");

    std::vector<bool> taken(priors, false);
    std::string dets;
    for (int k = 0; k < count; k++) {
        const FaceRect& fr = g_cap.faces[k];
        const short* p = &shorts[(size_t)k * FACEDETECTION_RESULT_STRIDE_SHORTS];
        // Upstream's public output must be the truncation of what detection_output returned.
        if (p[0] != (short)(fr.score * 100) || p[1] != fr.x || p[2] != fr.y || p[3] != fr.w || p[4] != fr.h)
            die("facedetect_cnn's buffer differs from detection_output's result");
        long found = -1;
        for (size_t i = 0; i < priors && found < 0; i++) {
            if (taken[i]) continue;
            float conf = std::sqrt(g_cap.cls[i] * g_cap.obj[i]);
            const float* b = &g_cap.reg[4 * i];
            if (conf == fr.score && int(b[0]) == fr.x && int(b[1]) == fr.y && int(b[2] - b[0]) == fr.w &&
                int(b[3] - b[1]) == fr.h)
                found = (long)i;
        }
        if (found < 0) die("a detection matches no prior");
        taken[found] = true;
        std::string d = "    {" + priorJSON((size_t)found, start, mapCols) + ",\n";
        d += "     \"upstream\": {\"score_percent\": " + std::to_string(p[0]) + ", \"x\": " +
             std::to_string(p[1]) + ", \"y\": " + std::to_string(p[2]) + ", \"w\": " + std::to_string(p[3]) +
             ", \"h\": " + std::to_string(p[4]) + ", \"landmarks\": [";
        for (int j = 0; j < 10; j++) d += (j ? ", " : "") + std::to_string(p[5 + j]);
        d += "]}}";
        dets += (k ? ",\n" : "") + d;
    }

    // The highest-scoring priors, before the threshold and NMS (ties: lower index first).
    std::vector<size_t> order(priors);
    for (size_t i = 0; i < priors; i++) order[i] = i;
    std::vector<float> score(priors);
    for (size_t i = 0; i < priors; i++) score[i] = std::sqrt(g_cap.cls[i] * g_cap.obj[i]);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return score[a] > score[b]; });
    std::string best;
    for (int k = 0; k < top && (size_t)k < priors; k++)
        best += std::string(k ? ",\n" : "") + "    {" + priorJSON(order[k], start, mapCols) + "}";

    std::string timing;
    for (int i = 0; i < runs; i++) timing += (i ? ", " : "") + num(std::round(ms[i] * 1000) / 1000);

    std::printf("{\n  \"width\": %d, \"height\": %d, \"padded_width\": %d, \"padded_height\": %d,\n",
                width, height, g_paddedW, g_paddedH);
    std::printf("  \"priors\": {\"8\": [%d, %d], \"16\": [%d, %d], \"32\": [%d, %d]},\n", mapRows[0],
                mapCols[0], mapRows[1], mapCols[1], mapRows[2], mapCols[2]);
    std::printf("  \"upstream_parameters\": {\"confidence_threshold\": %s, \"nms_iou\": %s, "
                "\"top_k\": %d, \"keep_top_k\": %d},\n",
                num(g_cap.confidence).c_str(), num(g_cap.overlap).c_str(), g_cap.topK, g_cap.keepTopK);
    std::printf("  \"detections\": [\n%s\n  ],\n", dets.c_str());
    std::printf("  \"top_priors\": [\n%s\n  ],\n", best.c_str());
    std::printf("  \"time_ms\": {\"median\": %s, \"runs\": [%s]}\n}\n", num(median).c_str(),
                timing.c_str());

    if (!dumpTarget.empty()) {
        std::string path = dumpTarget + "/index.json";
        FILE* f = std::fopen(path.c_str(), "w");
        if (!f) die("cannot write index.json");
        std::fprintf(f,
                     "{\"image\": \"%s\", \"width\": %d, \"height\": %d, \"padded_width\": %d, "
                     "\"padded_height\": %d,\n \"format\": \"little-endian float32, shape "
                     "[rows, cols, channels], channels fastest (HWC), no padding; stride = input "
                     "pixels per cell (0: a flat candidate array)\",\n"
                     " \"tensors\": [%s\n]}\n",
                     image, width, height, g_paddedW, g_paddedH, g_dumpIndex.c_str());
        std::fclose(f);
    }
    return 0;
}
