import GlossImaging
import GlossNeuralNetwork
@testable import GlossNeuralReading
import Testing

/// The recogniser's batching and input as RapidOCR makes them.
@Suite struct RecognizerInputTests {
    @Test func linesAreReadInChunksOfSimilarRatio() {
        // Ratios 10, 2, 30, 5, 8, 4, 12, 6: sorted 2 4 5 6 8 10 | 12 30.
        let sizes = [(480, 48), (64, 32), (900, 30), (250, 50), (400, 50), (120, 30), (600, 50), (300, 50)]
        let chunks = RecognizerInput.chunks(of: sizes)
        #expect(chunks.map(\.lines) == [[1, 5, 3, 7, 4, 0], [6, 2]])
        // 48 x 10 = 480; 48 x 30 = 1440; both multiples of 8 already.
        #expect(chunks.map(\.width) == [480, 1440] && chunks.map(\.paddedWidth) == [480, 1440])
        // A chunk of short lines is still 320 wide (rec_img_shape); 48 x 7.1 = 340.8 truncates
        // to 340, padded to 344 for the stride.
        #expect(RecognizerInput.chunks(of: [(100, 50)]) == [.init(lines: [0], width: 320, paddedWidth: 320)])
        #expect(RecognizerInput.chunks(of: [(710, 100)]) == [.init(lines: [0], width: 340, paddedWidth: 344)])
        #expect(RecognizerInput.chunks(of: []).isEmpty)
    }

    @Test func ownWidthsGiveEachLineItsWidthAndNoOtherLinesPadding() {
        // Ratios 10, 2, 7.1: 480, 96 (raised to the minimum 128), ceil(340.8) = 341 -> 344.
        let sizes = [(480, 48), (64, 32), (710, 100)]
        let own = RecognizerInput.chunks(of: sizes, widths: .own(minimum: 128))
        #expect(own.map(\.lines) == [[0], [1], [2]])
        #expect(own.map(\.width) == [480, 128, 341] && own.map(\.paddedWidth) == [480, 128, 344])
        // Each line's resized width fits its own input, so no line is cut short.
        for chunk in own {
            let line = chunk.lines[0]
            #expect(RecognizerInput.resizedWidth(of: sizes[line], limit: chunk.width) <= chunk.paddedWidth)
        }
        #expect(RecognizerInput.chunks(of: sizes, widths: .rapidOCRChunks) == RecognizerInput.chunks(of: sizes))
    }

    @Test func aLineIsResizedTo48HighKeepingItsRatio() {
        #expect(RecognizerInput.resizedWidth(of: (100, 50), limit: 320) == 96)
        #expect(RecognizerInput.resizedWidth(of: (101, 50), limit: 320) == 97, "rounded up")
        #expect(RecognizerInput.resizedWidth(of: (1000, 50), limit: 320) == 320, "at most the chunk's width")
        #expect(RecognizerInput.resizedWidth(of: (1000, 50), limit: 192) == 192)
    }

    @Test func theInputIsBGRNormalisedAndPaddedWithZeros() {
        // One RGB pixel row of a red line, 2 x 1 resized to 96 x 48 (ratio 2).
        let line = Raster(width: 2, height: 1, layout: .rgb, pixels: [255, 0, 51, 255, 0, 51])
        var map = FeatureMap(channels: 3, height: 48, width: 8)
        RecognizerInput.fill(&map, with: line, resizedWidth: 96, width: 104)
        #expect(map.channels == 3 && map.height == 48 && map.width == 104)
        // B first: 51 -> (0.2 - 0.5) / 0.5 = -0.6; G -1; R 1.
        #expect(abs(map[0, 10, 10] - -0.6) < 1e-6 && map[1, 10, 10] == -1 && map[2, 47, 95] == 1)
        #expect(map[0, 0, 96] == 0 && map[2, 47, 103] == 0, "zeros to the right")
        let grey = Raster(width: 1, height: 1, layout: .gray, pixels: [0])
        RecognizerInput.fillClassifier(&map, with: grey)
        #expect(map.width == 192 && map[0, 0, 47] == -1 && map[1, 0, 47] == -1 && map[2, 0, 48] == 0)
    }

    @Test func theResizeIsOpenCVsBilinear() {
        // Half size: each target pixel is the mean of two, rounded half up as OpenCV rounds.
        let row = Raster(width: 4, height: 1, layout: .gray, pixels: [0, 100, 200, 255])
        #expect(LinearResize.resize(row, width: 2, height: 1).pixels == [50, 228])
        // Doubled: the edges are held, the inside interpolated a quarter and three quarters.
        let pair = Raster(width: 2, height: 1, layout: .gray, pixels: [0, 200])
        #expect(LinearResize.resize(pair, width: 4, height: 1).pixels == [0, 50, 150, 200])
        #expect(LinearResize.resize(pair, width: 2, height: 1) == pair)
    }
}
