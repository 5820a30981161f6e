import GlossGeometry

extension PageFindings {
    /// The findings of a prepared page, carried back to the input page: every box becomes the
    /// bounding box of its corners once mapped, every point (baselines, landmarks) is mapped.
    /// The preparation record is kept as it is.
    public func mapped(by transform: PageTransform) -> PageFindings {
        guard !transform.isIdentity else { return self }
        var mapped = self
        mapped.text = text.mapped(by: transform)
        mapped.faces = faces.map { $0.mapped(by: transform) }
        mapped.regions = regions.map { region in
            var moved = region
            moved.box = transform.inputRect(ofPrepared: region.box)
            return moved
        }
        return mapped
    }
}

extension RecognizedText {
    /// The text with every block, paragraph, line, baseline and word on the input page.
    /// Each level is changed in place, so fields added to them later travel along.
    public func mapped(by transform: PageTransform) -> RecognizedText {
        guard !transform.isIdentity else { return self }
        func rect(_ box: NormalizedRect) -> NormalizedRect { transform.inputRect(ofPrepared: box) }
        func point(_ point: NormalizedPoint) -> NormalizedPoint { transform.inputPoint(ofPrepared: point) }
        var text = self
        for b in text.blocks.indices {
            text.blocks[b].box = rect(text.blocks[b].box)
            for p in text.blocks[b].paragraphs.indices {
                text.blocks[b].paragraphs[p].box = rect(text.blocks[b].paragraphs[p].box)
                for l in text.blocks[b].paragraphs[p].lines.indices {
                    var line = text.blocks[b].paragraphs[p].lines[l]
                    line.box = rect(line.box)
                    line.baseline = line.baseline.map { Baseline(start: point($0.start), end: point($0.end)) }
                    for w in line.words.indices { line.words[w].box = rect(line.words[w].box) }
                    text.blocks[b].paragraphs[p].lines[l] = line
                }
            }
        }
        return text
    }
}

extension Face {
    /// The face with its box and landmarks on the input page.
    public func mapped(by transform: PageTransform) -> Face {
        guard !transform.isIdentity else { return self }
        func landmark(_ mark: Landmark?) -> Landmark? {
            mark.map { Landmark(position: transform.inputPoint(ofPrepared: $0.position), source: $0.source) }
        }
        var face = self
        face.box = transform.inputRect(ofPrepared: box)
        face.leftEye = landmark(leftEye)
        face.rightEye = landmark(rightEye)
        face.mouth = landmark(mouth)
        face.nose = landmark(nose)
        face.mouthLeft = landmark(mouthLeft)
        face.mouthRight = landmark(mouthRight)
        return face
    }
}
