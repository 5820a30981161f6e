extension AnnotationSettings {
    /// The analyzers these settings ask for, in the order their findings are merged: the one
    /// place that turns settings into analyzers.
    var analyzers: [any Analyzer] {
        var list: [any Analyzer] = []
        if recognizeText {
            switch (textMode, textEngine) {
            case (.accurate, _): list.append(PlannedTextAnalyzer(options: recognition, steps: prepare))
            case (.fast, .tesseract): list.append(TextAnalyzer(options: recognition, steps: prepare))
            case (.fast, .neural): list.append(NeuralTextAnalyzer())
            }
        }
        if detectFaces {
            let dimension = faceDimension ?? faceDetector.defaultDimension
            switch faceDetector {
            case .cnn: list.append(CNNFaceAnalyzer(dimension: dimension, modelPath: faceModelPath, checksSmiles: detectSmiles))
            case .cascade: list.append(CascadeFaceAnalyzer(dimension: dimension))
            }
        }
        return list
    }
}
